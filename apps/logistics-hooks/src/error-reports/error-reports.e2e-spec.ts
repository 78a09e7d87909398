// Error monitoring over HTTP and Socket.IO: reports deduplicated by fingerprint (100 concurrent
// reports → one record with occurrences 100), the admin endpoints behind tokens issued by a real
// auth-api (its logistics realm, JWKS served by it), and the `/errors` namespace announcing new records.
import { generateKeyPairSync } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createTestApp, type TestApp } from '@platform/testing';
import { SignJWT, decodeProtectedHeader } from 'jose';
import { io, type Socket } from 'socket.io-client';
import { startAuthApi, type RunningAuthApi } from '../../test/auth-api';
import type { LogisticsHooksConfig } from '../config';
import { logisticsHooksService } from '../service';
import { errorFingerprint } from './error-reports.service';

const API_KEY = 'test-logistics-key-0123456789';

describe('error monitoring', () => {
  let auth: RunningAuthApi;
  let t: TestApp<LogisticsHooksConfig>;
  let baseUrl: string;
  let adminToken: string;
  let driverToken: string;
  const sockets: Socket[] = [];

  const report = (body: Record<string, unknown>) => t.http.post('/api/errors/report').send({ api_key: API_KEY, ...body });
  const asAdmin = (req: ReturnType<TestApp['http']['get']>) => req.set('authorization', `Bearer ${adminToken}`);

  function connect(token?: string): Socket {
    const socket = io(`${baseUrl}/errors`, { auth: token === undefined ? {} : { token }, transports: ['websocket'], reconnection: false, forceNew: true });
    sockets.push(socket);
    return socket;
  }
  const connected = (socket: Socket) =>
    new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', (err) => reject(err));
    });
  /** The first `event` whose record has this message (events of earlier reports may still arrive). */
  const next = (socket: Socket, event: string, message: string) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const listener = (record: Record<string, unknown>) => {
        if (record.message !== message) return;
        socket.off(event, listener);
        resolve(record);
      };
      socket.on(event, listener);
    });
  const refused = (socket: Socket) =>
    new Promise<string>((resolve, reject) => {
      socket.once('connect', () => reject(new Error('connected')));
      socket.once('connect_error', (err) => resolve(err.message));
    });

  beforeAll(async () => {
    auth = await startAuthApi();
    adminToken = await auth.login(auth.admin.email, auth.admin.password);
    await auth.createUser(adminToken, { email: 'driver@example.com', password: 'driver-password-1', role: 'driver' });
    driverToken = await auth.login('driver@example.com', 'driver-password-1');
    t = await createTestApp(logisticsHooksService, {
      LOGISTICS_API_KEY: API_KEY,
      AUTH_JWKS_URL: auth.jwksUrl,
      AUTH_ISSUER: auth.issuer,
      EVENTS_OUTBOX_POLL_MS: '100',
    });
    await t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
  }, 120_000);

  afterAll(async () => {
    for (const s of sockets) s.disconnect();
    await t?.close();
    await auth?.close();
  });

  it('refuses a report without the API key', async () => {
    const res = await t.http.post('/api/errors/report').send({ message: 'x' }).expect(401);
    expect(res.body.error.code).toBe('INVALID_API_KEY');
    await t.http.post('/api/errors/report').set('x-api-key', 'wrong-key-wrong-key').send({ message: 'x' }).expect(401);
  });

  it('stores a new error (201) and counts a repeat (200); the key may come as X-API-Key', async () => {
    const first = await report({ message: 'ONE tracking API answered 502', source: 'ocean-track', severity: 'warning', context: { container: 'CSQU3054383' } }).expect(201);
    expect(first.body).toMatchObject({
      success: true,
      deduplicated: false,
      record: { message: 'ONE tracking API answered 502', source: 'ocean-track', severity: 'warning', status: 'open', occurrences: 1, fingerprint: errorFingerprint('ONE tracking API answered 502') },
    });
    expect(first.body.record.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    const again = await t.http.post('/api/errors/report').set('x-api-key', API_KEY).send({ message: 'ONE tracking API answered 502', stack: 'at track()' }).expect(200);
    expect(again.body).toMatchObject({ deduplicated: true, record: { id: first.body.record.id, occurrences: 2, stack: 'at track()', context: { container: 'CSQU3054383' } } });
  });

  it('refuses a report without a message or with an unknown severity (422)', async () => {
    await report({ source: 'x' }).expect(422);
    await report({ message: '' }).expect(422);
    await report({ message: 'm', severity: 'fatal' }).expect(422);
  });

  it('100 concurrent reports of one error give one record with occurrences 100', async () => {
    const message = `Invoice parser crashed ${Date.now()}`;
    const results = await Promise.all(Array.from({ length: 100 }, () => report({ message, source: 'ap-invoice-process' })));
    expect(results.map((r) => r.status).sort()).toEqual([...Array(99).fill(200), 201]);
    expect(new Set(results.map((r) => r.body.record.id)).size).toBe(1);
    expect(results.map((r) => r.body.record.occurrences).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    const list = await asAdmin(t.http.get('/api/errors').query({ source: 'ap-invoice-process' })).expect(200);
    expect(list.body.total).toBe(1);
    expect(list.body.errors[0]).toMatchObject({ message, occurrences: 100 });
  });

  describe('admin endpoints', () => {
    it('refuse no token and forged tokens with 401, other roles with 403', async () => {
      const none = await t.http.get('/api/errors').expect(401);
      expect(none.body.error.code).toBe('UNAUTHORIZED');
      expect(none.headers['www-authenticate']).toBe('Bearer');
      await t.http.get('/api/errors').set('authorization', 'Bearer not.a.jwt').expect(401);

      // same claims and kid as auth-api's token, signed with another key
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const kid = decodeProtectedHeader(adminToken).kid!;
      const forged = await new SignJWT({ role: 'admin', realm: 'logistics', email: 'x@example.com' })
        .setProtectedHeader({ alg: 'RS256', kid })
        .setSubject('00000000-0000-4000-8000-000000000000')
        .setIssuer(auth.issuer)
        .setAudience('logistics')
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(privateKey);
      await t.http.get('/api/errors').set('authorization', `Bearer ${forged}`).expect(401);

      const driver = await t.http.get('/api/errors/stats').set('authorization', `Bearer ${driverToken}`).expect(403);
      expect(driver.body.error.code).toBe('FORBIDDEN');
      await t.http.patch('/api/errors/00000000-0000-4000-8000-000000000000').set('authorization', `Bearer ${driverToken}`).send({ status: 'resolved' }).expect(403);
      await t.http.delete('/api/errors/00000000-0000-4000-8000-000000000000').expect(401);
    });

    it('list and stats', async () => {
      const list = await asAdmin(t.http.get('/api/errors')).expect(200);
      expect(list.body).toMatchObject({ success: true, total: 2, limit: 50, offset: 0 });
      const page = await asAdmin(t.http.get('/api/errors').query({ limit: 1, offset: 1 })).expect(200);
      expect(page.body.errors).toHaveLength(1);
      await asAdmin(t.http.get('/api/errors').query({ status: 'closed' })).expect(422);
      // An offset beyond any bigint is refused (it reached the query as a 500).
      const huge = await asAdmin(t.http.get('/api/errors?offset=99999999999999999999')).expect(422);
      expect(JSON.stringify(huge.body)).toContain('offset');
      const stats = await asAdmin(t.http.get('/api/errors/stats')).expect(200);
      expect(stats.body).toMatchObject({
        success: true,
        total: 2,
        occurrences: 102,
        last_24h: 2,
        by_status: { open: 2, 'fix proposed': 0, resolved: 0 },
        by_severity: { critical: 0, error: 1, warning: 1, info: 0 },
      });
      expect(stats.body.top[0].occurrences).toBe(100);
    });

    it('PATCH moves states, refuses resolved → fix proposed, DELETE removes', async () => {
      const id = (await report({ message: 'CRM push failed' }).expect(201)).body.record.id as string;
      const proposed = await asAdmin(t.http.patch(`/api/errors/${id}`)).send({ status: 'fix proposed', proposed_fix: 'retry with backoff' }).expect(200);
      expect(proposed.body.record).toMatchObject({ status: 'fix proposed', proposed_fix: 'retry with backoff' });
      await asAdmin(t.http.patch(`/api/errors/${id}`)).send({ status: 'resolved', notes: 'deployed' }).expect(200);
      const refused = await asAdmin(t.http.patch(`/api/errors/${id}`)).send({ status: 'fix proposed' }).expect(409);
      expect(refused.body.error.code).toBe('INVALID_STATUS_TRANSITION');
      await asAdmin(t.http.patch(`/api/errors/${id}`)).send({ status: 'closed' }).expect(422);
      await asAdmin(t.http.patch(`/api/errors/${id}`)).send({}).expect(400);
      await asAdmin(t.http.patch('/api/errors/not-a-uuid')).send({ status: 'open' }).expect(400);
      await asAdmin(t.http.patch('/api/errors/00000000-0000-4000-8000-000000000000')).send({ status: 'open' }).expect(404);

      // a resolved error reported again is reopened
      const regression = await report({ message: 'CRM push failed' }).expect(200);
      expect(regression.body.record).toMatchObject({ id, status: 'open', occurrences: 2 });

      await asAdmin(t.http.delete(`/api/errors/${id}`)).expect(200, { success: true, deleted: id });
      await asAdmin(t.http.delete(`/api/errors/${id}`)).expect(404);
    });
  });

  describe('Socket.IO namespace /errors', () => {
    it('refuses a handshake without a token, with a forged one, and for other roles', async () => {
      expect(await refused(connect())).toBe('unauthorized');
      expect(await refused(connect('garbage'))).toBe('unauthorized');
      expect(await refused(connect(driverToken))).toBe('forbidden');
    });

    it('sends error_created with the record to every connected dashboard, error_updated on a repeat', async () => {
      const a = connect(adminToken);
      const b = connect(`Bearer ${adminToken}`);
      await Promise.all([connected(a), connected(b)]);
      const message = `Arrival notice audit failed ${Date.now()}`;
      const received = Promise.all([a, b].map((s) => next(s, 'error_created', message)));
      const created = await report({ message, source: 'an-audit', severity: 'critical' }).expect(201);
      const [ra, rb] = await received;
      expect(ra).toEqual(created.body.record);
      expect(rb).toEqual(created.body.record);

      const updated = next(a, 'error_updated', message);
      await report({ message }).expect(200);
      expect(await updated).toMatchObject({ id: created.body.record.id, occurrences: 2 });
    });
  });
});
