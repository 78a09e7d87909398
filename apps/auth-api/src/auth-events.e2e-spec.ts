import {
  AuthSessionRevoked,
  AuthUserCreated,
  EventBus,
  type AuthSessionRevokedData,
  type AuthUserCreatedData,
  type EventEnvelope,
} from '@platform/messaging';
import { createTestApp, uniqueSuffix, type TestApp } from '@platform/testing';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { freshIp } from '../test/helpers';
import type { AuthApiConfig } from './config';
import { authApiService } from './service';

const ADMIN = { email: 'events-admin@example.com', password: 'events-admin-password' };
const FISCAL_ADMIN = { email: 'events-fiscal@example.com', password: 'events-fiscal-password' };

interface OutboxRow<T> {
  eventId: string;
  source: string;
  correlationId: string | null;
  data: T;
}

function claimsOf(token: string): { sub: string; sid: string; email: string } {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
}

describe('events auth-api publishes through its outbox (e2e, in-process bus)', () => {
  let t: TestApp<AuthApiConfig>;
  const delivered: EventEnvelope<unknown>[] = [];

  beforeAll(async () => {
    t = await createTestApp(authApiService, {
      LOGISTICS_ADMIN_EMAIL: ADMIN.email,
      LOGISTICS_ADMIN_PASSWORD: ADMIN.password,
      AUTH_ADMIN_EMAIL: FISCAL_ADMIN.email,
      AUTH_ADMIN_PASSWORD: FISCAL_ADMIN.password,
    });
    await t.app.get(EventBus).subscribe(`auth-events-e2e-${uniqueSuffix(8)}`, [AuthSessionRevoked, AuthUserCreated], async (e) => {
      delivered.push(e);
    });
  });
  afterAll(() => t?.close());

  async function outbox<T>(type: string): Promise<OutboxRow<T>[]> {
    return t.app
      .get(DataSource)
      .query(
        `SELECT event_id AS "eventId", source, correlation_id AS "correlationId", data FROM ${t.config.DATABASE_SCHEMA}.outbox WHERE type = $1 ORDER BY id`,
        [type],
      );
  }
  const revocations = async (sessionId: string) =>
    (await outbox<AuthSessionRevokedData>(AuthSessionRevoked.type)).filter((r) => r.data.sessionId === sessionId);
  const creations = async (email: string) => (await outbox<AuthUserCreatedData>(AuthUserCreated.type)).filter((r) => r.data.email === email);

  async function waitForDelivery(eventId: string): Promise<EventEnvelope<unknown>> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const found = delivered.find((e) => e.id === eventId);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`event ${eventId} was not delivered`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  const login = async (email = ADMIN.email, password = ADMIN.password) =>
    (await t.http.post('/api/v1/logistics/auth/login').set('X-Forwarded-For', freshIp()).send({ email, password }).expect(200)).body as {
      access_token: string;
      refresh_token: string;
    };

  describe('auth.user_created', () => {
    it('is stored for both first users created at start', async () => {
      const [logistics] = await creations(ADMIN.email);
      expect(logistics.source).toBe('auth-api');
      expect(logistics.data).toEqual({ realm: 'logistics', userId: expect.any(String), email: ADMIN.email, role: 'admin', createdAt: expect.any(String) });
      const me = await t.http.get('/api/v1/logistics/auth/me').set('Authorization', `Bearer ${(await login()).access_token}`).expect(200);
      expect(logistics.data.userId).toBe(me.body.id);
      expect(logistics.data.createdAt).toBe(new Date(me.body.created_at).toISOString());

      const fiscal = await creations(FISCAL_ADMIN.email);
      expect(fiscal).toHaveLength(1);
      expect(fiscal[0].data).toMatchObject({ realm: 'fiscal', userId: expect.stringMatching(/^\d+$/), role: 'admin' });
    });

    it('is stored and delivered for POST /api/v1/logistics/users, with the request id; not for a duplicate', async () => {
      const admin = await login();
      const requestId = randomUUID();
      const res = await t.http
        .post('/api/v1/logistics/users')
        .set('Authorization', `Bearer ${admin.access_token}`)
        .set('X-Request-Id', requestId)
        .send({ email: 'New.Driver@example.com', password: 'driver-password', role: 'driver' })
        .expect(201);
      const rows = await creations('new.driver@example.com');
      expect(rows).toHaveLength(1);
      expect(rows[0].data).toEqual({ realm: 'logistics', userId: res.body.id, email: 'new.driver@example.com', role: 'driver', createdAt: expect.any(String) });
      expect(rows[0].correlationId).toBe(requestId);

      const event = await waitForDelivery(rows[0].eventId);
      expect(event).toMatchObject({ type: 'auth.user_created', source: 'auth-api', correlationId: requestId, data: rows[0].data });

      await t.http
        .post('/api/v1/logistics/users')
        .set('Authorization', `Bearer ${admin.access_token}`)
        .send({ email: 'new.driver@example.com', password: 'driver-password', role: 'driver' })
        .expect(409);
      expect(await creations('new.driver@example.com')).toHaveLength(1);
    });

    it('is stored by the create-user command in both realms', async () => {
      const write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
      try {
        const run = (args: string[]) => authApiService.commands!['create-user'].run(t.app, args, t.config);
        await run(['--realm', 'logistics', '--email', 'cmd.operator@example.com', '--password', 'operator-password', '--role', 'terminal_operator']);
        await run(['--realm', 'fiscal', '--email', 'cmd.clerk@example.com', '--password', 'clerk-password', '--role', 'clerk']);
        await expect(run(['--realm', 'fiscal', '--email', 'cmd.clerk@example.com', '--password', 'clerk-password'])).rejects.toThrow(/already exists/);
      } finally {
        write.mockRestore();
      }
      expect((await creations('cmd.operator@example.com')).map((r) => r.data)).toEqual([
        expect.objectContaining({ realm: 'logistics', role: 'terminal_operator' }),
      ]);
      expect((await creations('cmd.clerk@example.com')).map((r) => r.data)).toEqual([expect.objectContaining({ realm: 'fiscal', role: 'clerk' })]);
    });
  });

  describe('auth.session_revoked', () => {
    it('is stored once on logout with the refresh token, naming the sid of the session', async () => {
      const tokens = await login();
      const claims = claimsOf(tokens.access_token);
      expect(await revocations(claims.sid)).toHaveLength(0);

      await t.http.post('/api/v1/logistics/auth/logout').send({ refresh_token: tokens.refresh_token }).expect(204);
      const rows = await revocations(claims.sid);
      expect(rows).toHaveLength(1);
      expect(rows[0].data).toEqual({ sessionId: claims.sid, userId: claims.sub, email: ADMIN.email, reason: 'logout', revokedAt: expect.any(String) });
      expect(Number.isNaN(Date.parse(rows[0].data.revokedAt))).toBe(false);
      await waitForDelivery(rows[0].eventId);

      // Logout is idempotent, and so is the event.
      await t.http.post('/api/v1/logistics/auth/logout').send({ refresh_token: tokens.refresh_token }).expect(204);
      await t.http.post('/api/v1/logistics/auth/logout').set('Authorization', `Bearer ${tokens.access_token}`).send({}).expect(204);
      expect(await revocations(claims.sid)).toHaveLength(1);
    });

    it('is stored on logout with the access token only', async () => {
      const tokens = await login();
      const { sid } = claimsOf(tokens.access_token);
      await t.http.post('/api/v1/logistics/auth/logout').set('Authorization', `Bearer ${tokens.access_token}`).send({}).expect(204);
      expect((await revocations(sid)).map((r) => r.data.reason)).toEqual(['logout']);
    });

    it('is stored with reason reuse_detected when a used refresh token comes back', async () => {
      const first = await login();
      const { sid } = claimsOf(first.access_token);
      const second = (await t.http.post('/api/v1/logistics/auth/refresh').send({ refresh_token: first.refresh_token }).expect(200)).body;
      expect(claimsOf(second.access_token).sid).toBe(sid);
      expect(await revocations(sid)).toHaveLength(0);

      await t.http.post('/api/v1/logistics/auth/refresh').send({ refresh_token: first.refresh_token }).expect(401);
      const rows = await revocations(sid);
      expect(rows.map((r) => r.data)).toEqual([expect.objectContaining({ sessionId: sid, reason: 'reuse_detected', email: ADMIN.email })]);

      // The revoked session's later refreshes and logouts announce nothing more.
      await t.http.post('/api/v1/logistics/auth/refresh').send({ refresh_token: first.refresh_token }).expect(401);
      await t.http.post('/api/v1/logistics/auth/logout').send({ refresh_token: second.refresh_token }).expect(204);
      expect(await revocations(sid)).toHaveLength(1);
    });

    it('is not stored for a login, a refresh or an unknown refresh token', async () => {
      const before = (await outbox(AuthSessionRevoked.type)).length;
      const tokens = await login();
      await t.http.post('/api/v1/logistics/auth/refresh').send({ refresh_token: tokens.refresh_token }).expect(200);
      await t.http.post('/api/v1/logistics/auth/logout').send({ refresh_token: 'lrt_unknown' }).expect(204);
      expect(await outbox(AuthSessionRevoked.type)).toHaveLength(before);
    });
  });
});
