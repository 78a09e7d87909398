// Two replicas of logistics-hooks on one database, one RabbitMQ and one Redis, with auth-api publishing
// to the same broker: an error reported to replica A reaches a dashboard connected to replica B (through
// the outbox, the broker and the Socket.IO Redis adapter of @platform/realtime), once per client; a
// logout at auth-api (auth.session_revoked) makes every replica refuse that session's tokens and
// disconnects that session's dashboard sockets on every replica.
import type { AddressInfo } from 'node:net';
import { createTestApp, createTestDatabase, createTestRabbit, createTestRedisPrefix, testServices, type TestApp, type TestDatabase, type TestRabbit, type TestRedisPrefix } from '@platform/testing';
import { io, type Socket } from 'socket.io-client';
import { startAuthApi, type RunningAuthApi } from '../test/auth-api';
import type { LogisticsHooksConfig } from './config';
import { logisticsHooksService } from './service';

const API_KEY = 'test-logistics-key-0123456789';
const services = testServices();
const withServers = services.amqpUrl && services.redisUrl ? describe : describe.skip;

withServers('replicas on one broker and Redis', () => {
  let auth: RunningAuthApi;
  let database: TestDatabase;
  let rabbit: TestRabbit;
  let redis: TestRedisPrefix;
  const replicas: TestApp<LogisticsHooksConfig>[] = [];
  const sockets: Socket[] = [];
  let token: string;

  const urlOf = (t: TestApp) => `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;

  beforeAll(async () => {
    rabbit = await createTestRabbit();
    rabbit.queue('logistics-hooks.errors');
    rabbit.queue('logistics-hooks.sessions');
    const broker = { AMQP_URL: rabbit.url, EVENTS_EXCHANGE: rabbit.exchange, EVENTS_DLX: rabbit.dlx, EVENTS_QUEUE_PREFIX: `${rabbit.prefix}.` };
    auth = await startAuthApi({ ...broker, EVENTS_OUTBOX_POLL_MS: '100' });
    token = await auth.login(auth.admin.email, auth.admin.password);
    database = await createTestDatabase();
    redis = createTestRedisPrefix();
    const env = {
      LOGISTICS_API_KEY: API_KEY,
      AUTH_JWKS_URL: auth.jwksUrl,
      AUTH_ISSUER: auth.issuer,
      DATABASE_URL: database.url,
      ...(database.schema ? { DATABASE_SCHEMA: database.schema } : {}),
      ...broker,
      EVENTS_OUTBOX_POLL_MS: '100',
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: redis.prefix,
    };
    for (let i = 0; i < 2; i++) {
      const t = await createTestApp(logisticsHooksService, env);
      await t.app.listen(0, '127.0.0.1');
      replicas.push(t);
    }
  }, 120_000);

  afterAll(async () => {
    for (const s of sockets) s.disconnect();
    for (const t of replicas) await t.close();
    await rabbit?.cleanup();
    await redis?.cleanup();
    await database?.drop();
    await auth?.close();
  });

  it('a report to replica A reaches the dashboards of replica B (and A), once each', async () => {
    const [a, b] = replicas;
    const clients = [b, b, a].map((t) => io(`${urlOf(t)}/errors`, { auth: { token }, transports: ['websocket'], reconnection: false, forceNew: true }));
    sockets.push(...clients);
    await Promise.all(clients.map((s) => new Promise<void>((resolve, reject) => (s.once('connect', () => resolve()), s.once('connect_error', reject)))));

    const message = `Ocean tracking timed out ${Date.now()}`;
    const received = clients.map(() => [] as Record<string, unknown>[]);
    clients.forEach((s, i) => s.on('error_created', (record: Record<string, unknown>) => record.message === message && received[i].push(record)));
    const all = Promise.all(
      clients.map((s) => new Promise<void>((resolve) => s.on('error_created', (r: Record<string, unknown>) => r.message === message && resolve()))),
    );

    const res = await a.http.post('/api/errors/report').send({ api_key: API_KEY, message, source: 'ocean-track' }).expect(201);
    await all;
    // a second, later report proves nothing more of the first arrives before it
    const marker = `marker ${Date.now()}`;
    const markers = Promise.all(clients.map((s) => new Promise<void>((resolve) => s.on('error_created', (r: Record<string, unknown>) => r.message === marker && resolve()))));
    await b.http.post('/api/errors/report').send({ api_key: API_KEY, message: marker }).expect(201);
    await markers;

    for (const list of received) {
      expect(list).toHaveLength(1);
      expect(list[0]).toEqual(res.body.record);
    }
  });

  it('refuses the tokens of a session logged out at auth-api (auth.session_revoked), on every replica', async () => {
    const session = await auth.login(auth.admin.email, auth.admin.password);
    for (const t of replicas) await t.http.get('/api/errors/stats').set('authorization', `Bearer ${session}`).expect(200);
    // a dashboard of that session open on each replica, and one of another session that stays
    const open = replicas.map((t) => io(`${urlOf(t)}/errors`, { auth: { token: session }, transports: ['websocket'], reconnection: false, forceNew: true }));
    const bystander = io(`${urlOf(replicas[1])}/errors`, { auth: { token }, transports: ['websocket'], reconnection: false, forceNew: true });
    sockets.push(...open, bystander);
    await Promise.all([...open, bystander].map((s) => new Promise<void>((resolve, reject) => (s.once('connect', () => resolve()), s.once('connect_error', reject)))));
    const ended = open.map((s) => new Promise<unknown>((resolve) => s.once('session_ended', resolve)));
    const closed = open.map((s) => new Promise<string>((resolve) => s.once('disconnect', (reason) => resolve(reason))));
    await auth.logout(session);
    await expect(Promise.all(ended)).resolves.toEqual([{ reason: 'revoked' }, { reason: 'revoked' }]);
    await expect(Promise.all(closed)).resolves.toEqual(['io server disconnect', 'io server disconnect']);
    expect(bystander.connected).toBe(true);
    // the event travels auth-api's outbox → RabbitMQ → one replica's consumer → the shared database
    for (const t of replicas) {
      for (;;) {
        const res = await t.http.get('/api/errors/stats').set('authorization', `Bearer ${session}`);
        if (res.status === 401) break;
        expect(res.status).toBe(200);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const handshake = io(`${urlOf(replicas[0])}/errors`, { auth: { token: session }, transports: ['websocket'], reconnection: false, forceNew: true });
    sockets.push(handshake);
    await expect(new Promise((resolve, reject) => (handshake.once('connect', () => reject(new Error('connected'))), handshake.once('connect_error', (e) => resolve(e.message))))).resolves.toBe('unauthorized');
    // another session of the same admin still works
    const other = await auth.login(auth.admin.email, auth.admin.password);
    await replicas[1].http.get('/api/errors/stats').set('authorization', `Bearer ${other}`).expect(200);
  });
});
