import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { buildForTest, createTestDatabase, createTestRabbit, databaseEnv, spawnBuiltApp, testServices, type SpawnedApp, type TestDatabase, type TestRabbit } from '@platform/testing';
import { startFakeWhatsApp, type FakeWhatsApp } from '../../test/fake-whatsapp';
import { ADMIN_EMAIL, ADMIN_PASSWORD, sign, textDelivery, WA } from '../../test/helpers';

/** Polls `probe` until it returns a value other than undefined. */
async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * The built service (dist/apps/conversation-api/main.js) SIGKILLed in the middle of a recipe run,
 * then started again on the same database and RabbitMQ queues: the run is done once, each of its
 * actions once, its reply sent to the provider once.
 */
(testServices().amqpUrl ? describe : describe.skip)('recipe run killed mid-run (e2e, built app)', () => {
  let db: TestDatabase;
  let rabbit: TestRabbit;
  let provider: FakeWhatsApp;
  let dataDir: string;
  const children: SpawnedApp[] = [];
  let env: Record<string, string>;

  async function start(): Promise<SpawnedApp> {
    const app = await spawnBuiltApp('conversation-api', env, { unset: ['REDIS_URL'] });
    children.push(app);
    return app;
  }

  async function call(url: string, method: string, p: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: any }> {
    const res = await fetch(`${url}${p}`, { method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${p} answered ${res.status}: ${text}`);
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
  }

  beforeAll(async () => {
    await buildForTest('conversation-api');
    db = await createTestDatabase();
    rabbit = await createTestRabbit();
    for (const q of ['conversation-api.recipes', 'conversation-api.sockets']) rabbit.queue(q);
    provider = await startFakeWhatsApp({ accessToken: WA.accessToken });
    dataDir = mkdtempSync(path.join(tmpdir(), 'conversation-crash-'));
    env = {
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDir,
      ...databaseEnv(db),
      CONVERSATION_JWT_SECRET: randomBytes(32).toString('hex'),
      CONVERSATION_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      CONVERSATION_ADMIN_EMAIL: ADMIN_EMAIL,
      CONVERSATION_ADMIN_PASSWORD: ADMIN_PASSWORD,
      CONVERSATION_RATE_LIMIT_PER_MINUTE: '100000',
      CONVERSATION_DELIVERY_RETRY_MS: '10',
      EVENTS_OUTBOX_POLL_MS: '100',
      WHATSAPP_API_URL: provider.url,
      AMQP_URL: rabbit.url,
      EVENTS_EXCHANGE: rabbit.exchange,
      EVENTS_DLX: rabbit.dlx,
      EVENTS_QUEUE_PREFIX: `${rabbit.prefix}.`,
    };
  });

  afterAll(async () => {
    await Promise.all(children.map((c) => c.kill()));
    await provider?.close();
    await rabbit?.cleanup();
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('finishes the run once after a restart: one run logged, each action once, the reply sent once', async () => {
    const first = await start();
    const admin = { authorization: `Bearer ${(await call(first.url, 'POST', '/api/v1/auth/login', { email: ADMIN_EMAIL, password: ADMIN_PASSWORD })).body.data.access_token}` };
    const roles = (await call(first.url, 'GET', '/api/v1/roles', undefined, admin)).body.data as Array<{ id: string; name: string }>;
    const agent = (await call(first.url, 'POST', '/api/v1/users', { email: 'crash-agent@conversation.test', name: 'Cora', password: 'user-password-1', role_id: roles.find((r) => r.name === 'agent')!.id }, admin)).body.data.id as string;
    const teamId = (await call(first.url, 'POST', '/api/v1/teams', { name: 'Crash team', member_ids: [agent] }, admin)).body.data.id as string;
    const channelId = (
      await call(first.url, 'POST', '/api/v1/channels/whatsapp', { name: 'Support', phone_number: '+15550001111', phone_number_id: WA.phoneNumberId, access_token: WA.accessToken, app_secret: WA.appSecret, verify_token: WA.verifyToken }, admin)
    ).body.data.id as string;
    const canned = (await call(first.url, 'POST', '/api/v1/canned-responses', { short_code: 'hello', content: 'Hello {{contact.first_name}}' }, admin)).body.data.id as string;
    const recipe = (await call(first.url, 'POST', '/api/v1/recipes', { name: 'Crash course' }, admin)).body.data.id as string;
    const saved = await call(
      first.url,
      'PUT',
      `/api/v1/recipes/${recipe}/draft`,
      {
        trigger: 'conversation_created',
        conditions: [{ type: 'channel', channel_ids: [channelId] }],
        // The reply is written first; the assignment then waits for the team's row, which this test holds; the priority comes last.
        actions: [{ type: 'reply', canned_response_id: canned }, { type: 'assign_team', team_id: teamId }, { type: 'set_priority', priority: 'high' }],
      },
      { ...admin, 'if-match': `"${recipe}.1"` },
    );
    await call(first.url, 'POST', `/api/v1/recipes/${recipe}/publish`, undefined, { ...admin, 'if-match': saved.headers.get('etag')! });

    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    const schema = db.schema ?? 'conversation';
    try {
      await pg.query('BEGIN');
      await pg.query(`SELECT id FROM ${schema}.teams WHERE id = $1 FOR UPDATE`, [teamId]);
      const body = textDelivery({ id: 'wamid.crash-1', from: '15550003001', text: 'help', name: 'Dana Crash' });
      await call(first.url, 'POST', `/api/v1/webhooks/whatsapp/${channelId}`, body, { 'x-hub-signature-256': sign(body) });
      // The run that took the event is inside its transaction (inbox mark, run claimed, reply queued), waiting for the team.
      await waitFor('a run waiting for the team row', async () => {
        const rows = (await pg.query('SELECT DISTINCT pid FROM pg_locks WHERE NOT granted AND pg_backend_pid() = ANY(pg_blocking_pids(pid))')).rows as Array<{ pid: number }>;
        return rows[0]?.pid;
      });
      await first.kill();
      await pg.query('COMMIT');
    } finally {
      await pg.end();
    }

    const second = await start();
    const runs = await waitFor('the run logged', async () => {
      const page = (await call(second.url, 'GET', `/api/v1/recipes/${recipe}/runs?limit=100`, undefined, admin)).body;
      return page.meta.total >= 1 ? page : undefined;
    });
    expect(runs.data).toHaveLength(1);
    expect(runs.data[0]).toMatchObject({
      outcome: 'succeeded',
      actions: [
        { type: 'reply', outcome: 'done' },
        { type: 'assign_team', outcome: 'done' },
        { type: 'set_priority', outcome: 'done' },
      ],
    });
    const list = (await call(second.url, 'GET', '/api/v1/conversations?q=15550003001', undefined, admin)).body.data as Array<{ id: string }>;
    expect(list).toHaveLength(1);
    type Message = { message_type: string; private: boolean; content: string; status: string };
    const replies = (conversation: { messages: Message[] }) => conversation.messages.filter((m) => m.message_type === 'outgoing' && !m.private);
    // The provider has the reply a moment before the delivery records it sent: wait for the record.
    const conversation = await waitFor('the reply delivered', async () => {
      const read = (await call(second.url, 'GET', `/api/v1/conversations/${list[0].id}`, undefined, admin)).body.data;
      return replies(read).some((m) => m.status === 'pending') ? undefined : read;
    });
    expect(replies(conversation).map((m) => [m.content, m.status])).toEqual([['Hello Dana', 'sent']]);
    expect(provider.sent.filter((m) => m.to === '15550003001').map((m) => m.text?.body)).toEqual(['Hello Dana']);
    expect(conversation).toMatchObject({ team_id: teamId, assignee_id: agent, priority: 'high' });
    expect((conversation.messages as Message[]).filter((m) => m.message_type === 'activity' && m.content.startsWith('Assigned to'))).toHaveLength(1);
  }, 90_000);
});
