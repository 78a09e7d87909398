import { AmqpEventBus, AuthSessionRevoked, OutboxRelay, type AuthSessionRevokedData, type EventEnvelope } from '@platform/messaging';
import { createTestApp, createTestRabbit, startTcpProxy, testServices, type TcpProxy, type TestApp, type TestRabbit } from '@platform/testing';
import { DataSource } from 'typeorm';
import { freshIp } from '../test/helpers';
import type { AuthApiConfig } from './config';
import { authApiService } from './service';

// "Stopping RabbitMQ while auth-api runs does not crash it; /readyz reports the broker down and
// recovers when it is back." The outage is simulated by a TCP proxy between the app and RabbitMQ
// (the shared broker keeps running for everybody else).

const ADMIN = { email: 'outage-admin@example.com', password: 'outage-admin-password' };

/** auth-api's settings for the test: fast reconnects and relay polling, on the test's own exchanges when given. */
function eventSettings(rabbit?: TestRabbit): Record<string, string> {
  return {
    EVENTS_OUTBOX_POLL_MS: '100',
    EVENTS_RECONNECT_DELAY_MS: '50',
    EVENTS_MAX_RECONNECT_DELAY_MS: '400',
    ...(rabbit ? { EVENTS_EXCHANGE: rabbit.exchange, EVENTS_DLX: rabbit.dlx } : {}),
  };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Readiness {
  status: number;
  body: { status: string; checks: Record<string, { status: string; error?: string }> };
}

function helpers(get: () => TestApp<AuthApiConfig>) {
  const readyz = async (): Promise<Readiness> => {
    const res = await get().http.get('/readyz');
    return { status: res.status, body: res.body };
  };
  const readyzUntil = (status: 200 | 503) =>
    until(`/readyz answers ${status}`, async () => {
      const r = await readyz();
      return r.status === status ? r : undefined;
    });
  const login = async () => {
    const res = await get()
      .http.post('/api/v1/logistics/auth/login')
      .set('X-Forwarded-For', freshIp())
      .send({ email: ADMIN.email, password: ADMIN.password })
      .expect(200);
    const tokens = res.body as { access_token: string; refresh_token: string };
    const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1], 'base64url').toString()) as { sid: string; sub: string };
    return { ...tokens, sid: claims.sid, userId: claims.sub };
  };
  const outboxRows = (sid: string): Promise<Array<{ event_id: string; sent_at: Date | null; data: AuthSessionRevokedData }>> =>
    get()
      .app.get(DataSource)
      .query(`SELECT event_id, sent_at, data FROM ${get().config.DATABASE_SCHEMA}.outbox WHERE type = $1 AND data->>'sessionId' = $2`, [
        AuthSessionRevoked.type,
        sid,
      ]);
  return { readyz, readyzUntil, login, outboxRows };
}

describe('auth-api with no broker reachable at start', () => {
  let proxy: TcpProxy;
  let t: TestApp<AuthApiConfig>;
  const h = helpers(() => t);

  beforeAll(async () => {
    const brokerUrl = testServices().amqpUrl ?? 'amqp://guest:guest@127.0.0.1:5672';
    proxy = await startTcpProxy(brokerUrl);
    await proxy.cut({ newConnections: 'refuse' });
    t = await createTestApp(authApiService, {
      ...eventSettings(),
      AMQP_URL: proxy.rewriteUrl(brokerUrl),
      LOGISTICS_ADMIN_EMAIL: ADMIN.email,
      LOGISTICS_ADMIN_PASSWORD: ADMIN.password,
    });
  });
  afterAll(async () => {
    await t?.close();
    await proxy?.close();
  });

  it('starts, reports the broker down, authenticates, and keeps the revocation in the outbox', async () => {
    await t.http.get('/healthz').expect(200);
    const ready = await h.readyz();
    expect(ready.status).toBe(503);
    expect(ready.body.checks.broker.status).toBe('down');
    expect(ready.body.checks.database.status).toBe('up');

    const session = await h.login();
    await t.http.post('/api/v1/logistics/auth/logout').send({ refresh_token: session.refresh_token }).expect(204);
    expect(await t.app.get(OutboxRelay).flush()).toBe(0); // nothing can be published
    const rows = await h.outboxRows(session.sid);
    expect(rows).toHaveLength(1);
    expect(rows[0].sent_at).toBeNull();
    expect(rows[0].data).toMatchObject({ sessionId: session.sid, userId: session.userId, reason: 'logout' });
  });
});

// Needs the real RabbitMQ found by the test setup (without it the file still runs the test above).
const withRabbit = testServices().amqpUrl ? describe : () => undefined;

withRabbit('auth-api when its RabbitMQ connection is cut and restored', () => {
  let rabbit: TestRabbit;
  let proxy: TcpProxy;
  let observer: AmqpEventBus;
  let t: TestApp<AuthApiConfig>;
  const received: Array<EventEnvelope<AuthSessionRevokedData>> = [];
  const h = helpers(() => t);
  let sessionRevokedDuringOutage: { sid: string; userId: string };

  beforeAll(async () => {
    rabbit = await createTestRabbit();
    // A consumer bound directly on the real broker (not through the proxy).
    observer = new AmqpEventBus({ url: rabbit.url, source: 'broker-outage-test', exchange: rabbit.exchange, dlx: rabbit.dlx });
    await observer.start();
    await observer.waitUntilConnected();
    await observer.subscribe(rabbit.queue('session-observer'), [AuthSessionRevoked], async (e) => {
      received.push(e as EventEnvelope<AuthSessionRevokedData>);
    });
    proxy = await startTcpProxy(rabbit.url);
    t = await createTestApp(authApiService, {
      ...eventSettings(rabbit),
      AMQP_URL: proxy.rewriteUrl(rabbit.url),
      LOGISTICS_ADMIN_EMAIL: ADMIN.email,
      LOGISTICS_ADMIN_PASSWORD: ADMIN.password,
    });
  });
  afterAll(async () => {
    await t?.close();
    await proxy?.close();
    await observer?.close();
    await rabbit?.cleanup();
  });

  it('is ready with the broker up', async () => {
    const ready = await h.readyzUntil(200);
    expect(ready.body.checks).toMatchObject({ broker: { status: 'up' }, database: { status: 'up' } });
    expect(proxy.openConnections).toBeGreaterThan(0);
  });

  it('keeps running when the connection is cut, and /readyz reports the broker down', async () => {
    await proxy.cut();
    const ready = await h.readyzUntil(503);
    expect(ready.body.status).toBe('error');
    expect(ready.body.checks.broker.status).toBe('down');
    expect(ready.body.checks.database.status).toBe('up');
    await t.http.get('/healthz').expect(200);
  });

  it('still logs users in, and a logout during the outage stores its event in the outbox', async () => {
    const session = await h.login();
    await t.http.get('/api/v1/logistics/auth/me').set('Authorization', `Bearer ${session.access_token}`).expect(200);
    await t.http.post('/api/v1/logistics/auth/logout').send({ refresh_token: session.refresh_token }).expect(204);
    await t.http.get('/api/v1/logistics/auth/me').set('Authorization', `Bearer ${session.access_token}`).expect(401);

    expect(await t.app.get(OutboxRelay).flush()).toBe(0);
    const rows = await h.outboxRows(session.sid);
    expect(rows).toHaveLength(1);
    expect(rows[0].sent_at).toBeNull();
    expect((await h.readyz()).status).toBe(503);
    sessionRevokedDuringOutage = session;
  });

  it('is ready again once the broker is back, and delivers the outboxed event', async () => {
    await proxy.restore();
    const ready = await h.readyzUntil(200);
    expect(ready.body.checks.broker.status).toBe('up');

    const { sid, userId } = sessionRevokedDuringOutage;
    const event = await until('the observer received the revocation', async () => received.find((e) => e.data.sessionId === sid));
    expect(event).toMatchObject({
      type: 'auth.session_revoked',
      source: 'auth-api',
      data: { sessionId: sid, userId, email: ADMIN.email, reason: 'logout', revokedAt: expect.any(String) },
    });
    const rows = await until('the outbox row is marked sent', async () => {
      const r = await h.outboxRows(sid);
      return r[0]?.sent_at ? r : undefined;
    });
    expect(rows[0].event_id).toBe(event.id);
  });
});
