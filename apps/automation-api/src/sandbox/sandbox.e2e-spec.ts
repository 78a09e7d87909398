import { createServer } from 'node:net';
import { loadConfig as loadPlatformConfig } from '@platform/platform';
import { createTestApp, type TestApp } from '@platform/testing';
import { waitFor } from '../../test/engine-helpers';
import { AutomationConfig } from '../config';
import { Clock } from '../common/clock';
import { ReelPublisher } from '../reels/reel.publisher';
import { isSandbox } from '../accounts/sandbox-account';
import { automationApiService } from '../service';

const KEY = 'sandbox-test-key-0123456789';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

describe('sandbox (e2e)', () => {
  describe('development without platform credentials', () => {
    let t: TestApp<AutomationConfig>;
    const auth = { authorization: `Bearer ${KEY}` };

    beforeAll(async () => {
      const port = await freePort();
      t = await createTestApp(automationApiService, { AUTOMATION_API_KEY: KEY, PORT: String(port), AUTOMATION_POLL_MS: '50', PRIVATE_REPLY_SPACING_MS: '0', PRIVATE_REPLY_JITTER_MS: '0' });
      await t.app.listen(port, '127.0.0.1');
    });
    afterAll(() => t?.close());

    it('runs the whole flow on one machine against the built-in sandbox', async () => {
      const status = await t.http.get('/api/v1/status').set(auth);
      expect(status.status).toBe(200);
      expect(status.body).toMatchObject({ account_status: 'sandbox', problem: null, webhook_problem: null });

      const created = await t.http.post('/api/v1/automations').set(auth).send({ name: 'Try me', keywords: ['link'], follow_gate: true, public_replies: ['Check your DMs!'], link_url: 'https://example.com/x' });
      await t.http.post(`/api/v1/automations/${created.body.automation.id}/go_live`).set(auth).expect(200);

      const posts = (await t.http.get('/sandbox/outbox')).body.posts;
      expect(posts.length).toBeGreaterThanOrEqual(1);
      const comment = await t.http.post('/sandbox/comments').send({ text: 'LINK please', username: 'jane', user_id: '1000000000000042' });
      expect(comment.status).toBe(201);
      const opening = await waitFor(async () => (await t.http.get('/sandbox/outbox')).body.sent.find((s: any) => s.to.comment_id === comment.body.comment_id && s.kind === 'message'));
      const payload = opening.message.attachment.payload.buttons[0].payload;
      expect((await t.http.get('/sandbox/outbox')).body.sent.find((s: any) => s.kind === 'public_reply')).toMatchObject({ message: { text: 'Check your DMs!' } });

      await t.http.post('/sandbox/users').send({ user_id: '1000000000000042', follows: true }).expect(200);
      await t.http.post('/sandbox/postbacks').send({ payload, user_id: '1000000000000042' }).expect(201);
      const link = await waitFor(async () => (await t.http.get('/sandbox/outbox')).body.sent.find((s: any) => s.to.user_id === '1000000000000042' && !s.to.comment_id));
      const url = link.message.attachment.payload.buttons[0].url as string;
      expect(url).toMatch(/\/r\/[0-9A-Za-z]{12}$/);
      const click = await t.http.get(new URL(url).pathname);
      expect(click.status).toBe(302);
      expect(click.headers.location).toBe('https://example.com/x');

      expect((await t.http.post('/sandbox/comments').send({ text: '' })).status).toBe(400);
    });

    it('publishes scheduled reels (video_url and an uploaded file) on the sandbox', async () => {
      const upload = await t.http.post('/api/v1/videos').set(auth).set('content-type', 'video/mp4').send(Buffer.alloc(4096, 1));
      expect(upload.status).toBe(201);
      const now = new Date(Date.now() - 1000).toISOString();
      const a = await t.http.post('/api/v1/reels').set(auth).send({ publish_at: now, caption: 'Sandbox launch', source: { video_url: 'https://cdn.example.com/v.mp4' } });
      const b = await t.http.post('/api/v1/reels').set(auth).send({ publish_at: now, caption: 'Sandbox file', source: { video_id: upload.body.video_id } });
      expect([a.status, b.status]).toEqual([201, 201]);
      const publisher = t.app.get(ReelPublisher);
      const statuses = async () => Promise.all([a.body.id, b.body.id].map(async (id) => (await t.http.get(`/api/v1/reels/${id}`).set(auth)).body.status as string));
      // The publisher's own loop runs too: a reel it holds (leased) is finished by it, not by drain().
      for (let i = 0; i < 100 && (await statuses()).some((s) => s !== 'published' && s !== 'failed'); i++) {
        await publisher.drain();
        t.app.get(Clock).advance(60_000);
        await new Promise((r) => setTimeout(r, 20));
      }
      for (const id of [a.body.id, b.body.id]) {
        expect((await t.http.get(`/api/v1/reels/${id}`).set(auth)).body).toMatchObject({ status: 'published', media_id: expect.any(String), error: null });
      }
      const posts = (await t.http.get('/sandbox/outbox')).body.posts as Array<{ caption: string; media_product_type: string }>;
      expect(posts.filter((p) => p.media_product_type === 'REELS').map((p) => p.caption)).toEqual(expect.arrayContaining(['Sandbox launch', 'Sandbox file']));
    });

    it('answers an action on something the sandbox does not have with its status and the {error} shape', async () => {
      const res = await t.http.post('/sandbox/comments').send({ text: 'hi', media_id: 'no-such-media' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'no media no-such-media (GET /sandbox/outbox lists the sandbox posts)' });
    });

    it('documents the engine endpoints and the customer webhook body in Swagger', async () => {
      const doc = (await t.http.get('/api/docs-json')).body;
      expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/webhooks/instagram', '/r/{code}', '/sandbox/comments', '/sandbox/outbox']));
      expect(Object.keys(doc.components.schemas.CustomerWebhookDto.properties).sort()).toEqual(['automation', 'contact', 'event', 'link', 'occurred_at', 'run_id']);
      expect(doc.info.description).toContain('X-Service-Signature');
    });
  });

  it('does not exist with NODE_ENV=production', async () => {
    const t = await createTestApp(automationApiService, {
      NODE_ENV: 'production',
      AUTOMATION_API_KEY: KEY,
      IG_ACCESS_TOKEN: 'token',
      IG_APP_SECRET: 'secret',
      IG_VERIFY_TOKEN: 'verify',
    });
    try {
      expect((await t.http.get('/sandbox/outbox')).status).toBe(404);
      expect((await t.http.post('/sandbox/comments').send({ text: 'x' })).status).toBe(404);
      expect((await t.http.get('/sandbox/graph/v23.0/me')).status).toBe(404);
    } finally {
      await t.close();
    }
  });

  it('is not used when platform credentials are set, and private webhook targets are refused in production', () => {
    const base = { PORT: '3001', AUTOMATION_API_KEY: KEY, IG_ACCESS_TOKEN: 'token', IG_APP_SECRET: 'secret', IG_VERIFY_TOKEN: 'verify' };
    // The defaults createServiceApp gives every app (REDIS_KEY_PREFIX is BaseConfig's, `<service name>:`).
    const loadConfig = (cls: typeof AutomationConfig, env: Record<string, string>) => loadPlatformConfig(cls, env, { REDIS_KEY_PREFIX: `${automationApiService.name}:` });
    expect(() => loadConfig(AutomationConfig, { ...base, NODE_ENV: 'production', AUTOMATION_WEBHOOK_ALLOW_PRIVATE: 'true' })).toThrow(/AUTOMATION_WEBHOOK_ALLOW_PRIVATE/);
    expect(loadConfig(AutomationConfig, { ...base, NODE_ENV: 'development', AUTOMATION_WEBHOOK_ALLOW_PRIVATE: 'true' }).AUTOMATION_WEBHOOK_ALLOW_PRIVATE).toBe(true);
    expect(() => loadConfig(AutomationConfig, { ...base, NODE_ENV: 'production', AUTOMATION_VIDEO_URL_ALLOW_PRIVATE: 'true' })).toThrow(/AUTOMATION_VIDEO_URL_ALLOW_PRIVATE/);
    const dev = loadConfig(AutomationConfig, { ...base, NODE_ENV: 'development', AUTOMATION_WEBHOOK_ALLOW_PRIVATE: 'true' });
    expect(dev.AUTOMATION_VIDEO_URL_ALLOW_PRIVATE).toBe(false);
    expect(isSandbox(loadConfig(AutomationConfig, { ...base, NODE_ENV: 'development' }))).toBe(false);
    expect(isSandbox(loadConfig(AutomationConfig, { PORT: '3001', NODE_ENV: 'development', IG_GRAPH_URL: 'http://127.0.0.1:9/v23.0' }))).toBe(false);
    expect(isSandbox(loadConfig(AutomationConfig, { PORT: '3001', NODE_ENV: 'development' }))).toBe(true);
  });
});
