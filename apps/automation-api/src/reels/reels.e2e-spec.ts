import { startAutomationApp, type AutomationTestContext } from '../../test/automation-app';
import { commentWebhook, deliver, waitFor } from '../../test/engine-helpers';
import { Clock } from '../common/clock';
import { ReelScheduler } from '../engine/reel.scheduler';
import { ReelPublisher } from './reel.publisher';

const POLL = 60_000;

/** Scheduled reels through the content-publishing flow of the fake Graph API (the clock is moved, never waited for). */
describe('reels (e2e)', () => {
  let ctx: AutomationTestContext;
  const auth = (key = ctx.keyA) => ({ authorization: `Bearer ${key}` });
  const get = (path: string, key?: string) => ctx.t.http.get(`/api/v1${path}`).set(auth(key));
  const post = (path: string, body?: unknown, key?: string) => ctx.t.http.post(`/api/v1${path}`).set(auth(key)).send(body as object);
  const clock = () => ctx.t.app.get(Clock);
  const publisher = () => ctx.t.app.get(ReelPublisher);
  /** Moves the clock past the next poll and lets the publisher take its steps. */
  const step = async (ms = POLL + 1) => {
    clock().advance(ms);
    await publisher().drain();
  };
  const inAnHour = () => new Date(clock().now().getTime() + 3_600_000).toISOString();

  beforeAll(async () => {
    ctx = await startAutomationApp({ PUBLISH_POLL_MS: String(POLL), AUTOMATION_SCHEDULER_INTERVAL_MS: '60000', AUTOMATION_RETRY_BASE_MS: '1000' });
  });
  afterAll(() => ctx?.close());
  beforeEach(() => ctx.fakeA.reset());

  async function waitingAutomation(): Promise<number> {
    const res = await post('/automations', { name: 'Launch reel', next_post: true, keywords: ['guide'], link_url: 'https://example.com/guide' });
    expect(res.status).toBe(201);
    await post(`/automations/${res.body.automation.id}/go_live`).expect(200);
    return res.body.automation.id;
  }

  it('publishes at publish_at (container → status → publish), passes trial and share_to_feed, and attaches its automation by media id', async () => {
    const automationId = await waitingAutomation();
    const created = await post('/reels', {
      publish_at: inAnHour(),
      caption: 'The guide is out',
      source: { video_url: 'https://cdn.example.com/guide.mp4' },
      trial: true,
      share_to_feed: true,
      automation_id: automationId,
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      status: 'scheduled',
      publish_at: expect.any(String),
      caption: 'The guide is out',
      source: { video_url: 'https://cdn.example.com/guide.mp4' },
      trial: true,
      share_to_feed: true,
      automation_id: automationId,
      container_status: null,
      media_id: null,
      permalink: null,
      published_at: null,
      error: null,
      created_at: expect.any(String),
    });
    const id = created.body.id;

    // Before its time nothing happens.
    await publisher().drain();
    expect(ctx.fakeA.requestsTo('/media', 'POST')).toHaveLength(0);
    expect((await get(`/reels/${id}`)).body.status).toBe('scheduled');

    // Another reel goes online meanwhile: the bound automation does not guess it.
    ctx.fakeA.addMedia({ media_type: 'VIDEO', media_product_type: 'REELS', caption: 'Something else' });
    await ctx.t.app.get(ReelScheduler).drain();
    expect((await get(`/automations/${automationId}`)).body.reel_status).toBe('waiting');

    await step(3_600_000);
    let reel = (await get(`/reels/${id}`)).body;
    expect(reel).toMatchObject({ status: 'processing', container_status: 'IN_PROGRESS' });
    const [container] = [...ctx.fakeA.state.containers.values()];
    expect(container).toMatchObject({ video_url: 'https://cdn.example.com/guide.mp4', caption: 'The guide is out', share_to_feed: true, trial_params: { graduation_strategy: 'MANUAL' } });

    await step(); // IN_PROGRESS once more
    expect((await get(`/reels/${id}`)).body.status).toBe('processing');
    await step(); // FINISHED → ready → publishing → published
    reel = (await get(`/reels/${id}`)).body;
    const media = ctx.fakeA.state.media.find((m) => m.caption === 'The guide is out')!;
    expect(reel).toMatchObject({ status: 'published', container_status: 'PUBLISHED', media_id: media.id, permalink: media.permalink, error: null });
    expect(reel.published_at).not.toBeNull();
    expect(ctx.fakeA.requestsTo('/media_publish', 'POST')).toHaveLength(1);

    const automation = (await get(`/automations/${automationId}`)).body;
    expect(automation).toMatchObject({ reel_status: 'attached', reel_media_id: media.id, media_ids: [media.id] });
    const events = (await get(`/events?kind=reel_attached&automation_id=${automationId}`)).body.data;
    expect(events).toHaveLength(1);

    // The attached automation answers comments on the new reel.
    const comment = ctx.fakeA.addComment(media.id, { text: 'guide please', from: { id: '7770001', username: 'ria' } });
    await deliver(ctx, commentWebhook(ctx.fakeA.state.account.user_id, comment)).expect(200);
    await waitFor(() => ctx.fakeA.state.messages.some((m) => m.recipient.comment_id === comment.id));

    // A second reel cannot take the same automation; published reels cannot be cancelled.
    expect((await post('/reels', { publish_at: inAnHour(), caption: 'x', source: { video_url: 'https://cdn.example.com/x.mp4' }, automation_id: automationId })).status).toBe(409);
    expect((await post(`/reels/${id}/cancel`)).status).toBe(409);
  });

  it('prepares the container before publish_at and waits in ready: the reel goes online at its time, not earlier', async () => {
    const created = await post('/reels', { publish_at: inAnHour(), caption: 'On the hour', source: { video_url: 'https://cdn.example.com/hour.mp4' } });
    const id = created.body.id;
    await step(45 * 60_000); // 15 minutes before: nothing yet (PUBLISH_PREPARE_MINUTES = 10)
    expect((await get(`/reels/${id}`)).body.status).toBe('scheduled');
    await step(10 * 60_000); // 5 minutes before: the container is created and processed
    expect((await get(`/reels/${id}`)).body).toMatchObject({ status: 'processing', container_status: 'IN_PROGRESS' });
    await step();
    await step();
    expect((await get(`/reels/${id}`)).body).toMatchObject({ status: 'ready', container_status: 'FINISHED', media_id: null });
    await step();
    expect((await get(`/reels/${id}`)).body.status).toBe('ready');
    expect(ctx.fakeA.requestsTo('/media_publish')).toHaveLength(0);
    await step(2 * 60_000); // publish_at passed
    expect((await get(`/reels/${id}`)).body).toMatchObject({ status: 'published', media_id: expect.any(String) });
    expect(ctx.fakeA.requestsTo('/media_publish')).toHaveLength(1);
  });

  it('uploads a stored video with the resumable protocol (uploading → processing), retrying a dropped upload', async () => {
    const bytes = Buffer.alloc(300_000, 7);
    const upload = await ctx.t.http.post('/api/v1/videos').set(auth()).set('content-type', 'video/mp4').send(bytes);
    expect(upload.status).toBe(201);
    expect(upload.body).toMatchObject({ video_id: expect.any(String), size_mb: 0.29, file_status: 'stored', content_type: 'video/mp4' });
    const created = await post('/reels', { publish_at: new Date(clock().now().getTime() - 1000).toISOString(), caption: 'From a file', source: { video_id: upload.body.video_id } });
    expect(created.status).toBe(201);
    expect(created.body.source).toEqual({ video_id: upload.body.video_id, size_mb: 0.29, file_status: 'stored' });

    ctx.fakeA.fail({ path: '/ig-api-upload/', mode: 'reset' });
    await publisher().drain();
    let reel = (await get(`/reels/${created.body.id}`)).body;
    expect(reel.status).toBe('uploading');
    expect(reel.error).toMatch(/upload/);

    await step(1_001);
    reel = (await get(`/reels/${created.body.id}`)).body;
    expect(reel).toMatchObject({ status: 'processing', source: { video_id: upload.body.video_id, size_mb: 0.29, file_status: 'uploaded' } });
    const uploaded = [...ctx.fakeA.state.containers.values()].find((c) => c.uploaded_bytes > 0)!;
    expect(uploaded).toMatchObject({ upload_type: 'resumable', uploaded_bytes: 300_000 });
    await step();
    await step();
    expect((await get(`/reels/${created.body.id}`)).body).toMatchObject({ status: 'published', media_id: expect.any(String) });
  });

  it('a container in ERROR fails the reel with the platform text kept; a refused container too', async () => {
    ctx.fakeA.state.containerPlan.push({ polls: 0, error: 'Error: The video could not be processed (2207026)' });
    const res = await post('/reels', { publish_at: new Date(clock().now().getTime() - 1000).toISOString(), caption: 'Broken', source: { video_url: 'https://cdn.example.com/broken.mp4' } });
    await publisher().drain();
    await step();
    expect((await get(`/reels/${res.body.id}`)).body).toMatchObject({ status: 'failed', container_status: 'ERROR', error: 'Error: The video could not be processed (2207026)', media_id: null });

    ctx.fakeA.fail({ path: '/media', method: 'POST', code: 100, status: 400, message: 'The aspect ratio is not supported.' });
    const refused = await post('/reels', { publish_at: new Date(clock().now().getTime() - 1000).toISOString(), caption: 'Refused', source: { video_url: 'https://cdn.example.com/wide.mp4' } });
    await publisher().drain();
    expect((await get(`/reels/${refused.body.id}`)).body).toMatchObject({ status: 'failed', error: expect.stringContaining('The aspect ratio is not supported.') });
  });

  it('cancel, validation and isolation', async () => {
    const res = await post('/reels', { publish_at: inAnHour(), caption: 'Later', source: { video_url: 'https://cdn.example.com/later.mp4' } });
    expect((await post(`/reels/${res.body.id}/cancel`)).body.status).toBe('cancelled');
    expect((await post(`/reels/${res.body.id}/cancel`)).status).toBe(200);
    await step(3_700_000);
    expect((await get(`/reels/${res.body.id}`)).body.status).toBe('cancelled');
    expect(ctx.fakeA.requestsTo('/media', 'POST').filter((r) => r.query.caption === 'Later')).toHaveLength(0);

    const bad = async (body: Record<string, unknown>, pattern: RegExp) => {
      const r = await post('/reels', { publish_at: inAnHour(), caption: 'c', source: { video_url: 'https://cdn.example.com/a.mp4' }, ...body });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatch(pattern);
    };
    await bad({ publish_at: '2026-12-01T18:00:00' }, /publish_at/);
    await bad({ source: { video_url: 'https://cdn.example.com/a.mp4', video_id: '6f1c4f7e-8a53-4e1e-9a0b-0d1c2b3a4f5e' } }, /exactly one/);
    await bad({ source: {} }, /exactly one/);
    await bad({ source: { video_url: 'http://127.0.0.1/a.mp4' } }, /video_url/);
    await bad({ source: { video_id: '6f1c4f7e-8a53-4e1e-9a0b-0d1c2b3a4f5e' } }, /video_id/);
    await bad({ share_to_feed: 'yes' }, /share_to_feed/);
    await bad({ extra: 1 }, /extra/);
    const dm = await post('/automations', { name: 'DM', trigger: 'dm', keywords: ['x'] });
    await bad({ automation_id: dm.body.automation.id }, /next_post/);

    expect((await get(`/reels/${res.body.id}`, ctx.keyB)).status).toBe(404);
    expect((await get('/reels', ctx.keyB)).body).toEqual([]);
    expect((await get('/reels')).body.length).toBeGreaterThan(0);
    expect((await get('/reels?status=cancelled')).body.every((r: { status: string }) => r.status === 'cancelled')).toBe(true);
    expect((await ctx.t.http.get('/api/v1/reels')).status).toBe(401);
  });
});
