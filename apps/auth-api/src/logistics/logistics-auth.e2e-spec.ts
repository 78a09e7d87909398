import { JwksVerifier } from '@platform/auth';
import { createTestApp, type TestApp } from '@platform/testing';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { craftToken, freshIp } from '../../test/helpers';
import type { AuthApiConfig } from '../config';
import { SigningKeys } from '../keys/signing-keys';
import { authApiService } from '../service';

const ADMIN = { email: 'ops-admin@example.com', password: 'ops-admin-password' };
const FISCAL_ADMIN = { email: 'fiscal@example.com', password: 'fiscal-password' };

interface Tokens {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
}

describe('part G logistics realm (e2e)', () => {
  let t: TestApp<AuthApiConfig>;

  beforeAll(async () => {
    t = await createTestApp(authApiService, {
      LOGISTICS_ADMIN_EMAIL: ADMIN.email,
      LOGISTICS_ADMIN_PASSWORD: ADMIN.password,
      AUTH_ADMIN_EMAIL: FISCAL_ADMIN.email,
      AUTH_ADMIN_PASSWORD: FISCAL_ADMIN.password,
    });
  });
  afterAll(() => t?.close());

  const login = (email: string, password: string, ip = freshIp()) =>
    t.http.post('/api/v1/logistics/auth/login').set('X-Forwarded-For', ip).send({ email, password });

  async function session(email = ADMIN.email, password = ADMIN.password): Promise<Tokens> {
    return (await login(email, password).expect(200)).body as Tokens;
  }

  let userCounter = 0;
  async function newUser(role: string): Promise<{ email: string; password: string; id: string }> {
    userCounter += 1;
    const email = `${role}.${userCounter}@example.com`;
    const admin = await session();
    const res = await t.http
      .post('/api/v1/logistics/users')
      .set('Authorization', `Bearer ${admin.access_token}`)
      .send({ email, password: 'user-password-1', role, full_name: `User ${userCounter}` })
      .expect(201);
    return { email, password: 'user-password-1', id: res.body.id };
  }

  const refresh = (refresh_token: string) => t.http.post('/api/v1/logistics/auth/refresh').send({ refresh_token });
  const me = (token: string) => t.http.get('/api/v1/logistics/auth/me').set('Authorization', `Bearer ${token}`);

  describe('login', () => {
    it('returns access and refresh tokens; the access token carries role and realm', async () => {
      const tokens = await session();
      expect(tokens).toEqual({ access_token: expect.any(String), refresh_token: expect.stringMatching(/^lrt_/), token_type: 'bearer', expires_in: 3600 });
      const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1], 'base64url').toString());
      expect(claims).toMatchObject({ role: 'admin', realm: 'logistics', aud: 'logistics', email: ADMIN.email });
      expect(claims.exp - claims.iat).toBe(3600);
    });

    it('stores refresh tokens hashed only', async () => {
      const tokens = await session();
      const rows: Array<{ token_hash: string }> = await t.app
        .get(DataSource)
        .query(`SELECT token_hash FROM ${t.config.DATABASE_SCHEMA}.logistics_refresh_tokens`);
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.some((r) => r.token_hash === tokens.refresh_token)).toBe(false);
    });

    it('answers 401 {detail} for wrong credentials and 422 {detail} for a bad body', async () => {
      expect((await login(ADMIN.email, 'nope-nope').expect(401)).body).toEqual({ detail: 'Incorrect email or password' });
      expect((await login('unknown@example.com', 'whatever').expect(401)).body).toEqual({ detail: 'Incorrect email or password' });
      const bad = await t.http.post('/api/v1/logistics/auth/login').set('X-Forwarded-For', freshIp()).send({ email: 'not-an-email' }).expect(422);
      expect(bad.body.detail).toMatch(/email/);
      expect(bad.body.detail).toMatch(/password/);
    });

    it('limits attempts: 429 {detail} with Retry-After', async () => {
      const ip = freshIp();
      for (let i = 0; i < 10; i++) await login(ADMIN.email, 'wrong-password', ip).expect(401);
      const res = await login(ADMIN.email, ADMIN.password, ip).expect(429);
      expect(res.body.detail).toMatch(/Too many login attempts/);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    });

    it('refuses the part B realm credentials and tokens', async () => {
      await login(FISCAL_ADMIN.email, FISCAL_ADMIN.password).expect(401);
      const fiscal = await t.http
        .post('/api/v1/auth/login')
        .set('X-Forwarded-For', freshIp())
        .type('form')
        .send({ username: FISCAL_ADMIN.email, password: FISCAL_ADMIN.password })
        .expect(200);
      expect((await me(fiscal.body.access_token).expect(401)).body).toEqual({ detail: 'Could not validate credentials' });
    });
  });

  describe('refresh rotation', () => {
    it('rotates: the new pair works, the old refresh token is used up', async () => {
      const first = await session();
      const second = (await refresh(first.refresh_token).expect(200)).body as Tokens;
      expect(second.refresh_token).not.toBe(first.refresh_token);
      expect(second.expires_in).toBe(3600);
      await me(second.access_token).expect(200);
      const third = (await refresh(second.refresh_token).expect(200)).body as Tokens;
      await me(third.access_token).expect(200);
    });

    it('reuse of a rotated token revokes the whole family', async () => {
      const first = await session();
      const second = (await refresh(first.refresh_token).expect(200)).body as Tokens;
      const reused = await refresh(first.refresh_token).expect(401);
      expect(reused.body.detail).toMatch(/already used/);
      // every token of the family is dead now: the newest refresh token and its access token
      await refresh(second.refresh_token).expect(401);
      await me(second.access_token).expect(401);
      // another session of the same user is unaffected
      const other = await session();
      await me(other.access_token).expect(200);
    });

    it('answers 401 for an unknown token and 422 without one', async () => {
      expect((await refresh('lrt_unknown').expect(401)).body.detail).toMatch(/Invalid or expired refresh token/);
      await t.http.post('/api/v1/logistics/auth/refresh').send({}).expect(422);
    });

    it('answers 401 for an expired refresh token', async () => {
      const tokens = await session();
      await t.app
        .get(DataSource)
        .query(`UPDATE ${t.config.DATABASE_SCHEMA}.logistics_refresh_tokens SET expires_at = now() - interval '1 second' WHERE used_at IS NULL AND revoked_at IS NULL`);
      await refresh(tokens.refresh_token).expect(401);
    });
  });

  describe('logout', () => {
    it('revokes the family of the refresh token given in the body', async () => {
      const tokens = await session();
      await t.http.post('/api/v1/logistics/auth/logout').send({ refresh_token: tokens.refresh_token }).expect(204);
      await refresh(tokens.refresh_token).expect(401);
      await me(tokens.access_token).expect(401);
      // idempotent
      await t.http.post('/api/v1/logistics/auth/logout').send({ refresh_token: tokens.refresh_token }).expect(204);
    });

    it('revokes the session of the bearer access token', async () => {
      const tokens = await session();
      await t.http.post('/api/v1/logistics/auth/logout').set('Authorization', `Bearer ${tokens.access_token}`).expect(204);
      await refresh(tokens.refresh_token).expect(401);
    });

    it('answers 401 with neither', async () => {
      const res = await t.http.post('/api/v1/logistics/auth/logout').send({}).expect(401);
      expect(res.body.detail).toMatch(/refresh token/);
      await t.http.post('/api/v1/logistics/auth/logout').set('Authorization', 'Bearer garbage').expect(401);
    });
  });

  describe('me', () => {
    it('returns the user', async () => {
      const res = await me((await session()).access_token).expect(200);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        email: ADMIN.email,
        full_name: 'Administrator',
        role: 'admin',
        is_active: true,
        created_at: expect.any(String),
      });
    });

    it('refuses an expired token and a bad signature', async () => {
      const keys = t.app.get(SigningKeys);
      const tokens = await session();
      const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1], 'base64url').toString());
      const expired = craftToken(keys, { ...claims, iat: claims.iat - 7200, exp: claims.iat - 3600 });
      expect((await me(expired).expect(401)).body).toEqual({ detail: 'Could not validate credentials' });
      const [h, p] = tokens.access_token.split('.');
      await me(`${h}.${p}.${Buffer.from('forged').toString('base64url')}`).expect(401);
      await t.http.get('/api/v1/logistics/auth/me').expect(401);
    });

    it('refuses tokens of a deactivated user, who can no longer log in or refresh', async () => {
      const user = await newUser('driver');
      const tokens = await session(user.email, user.password);
      await t.app.get(DataSource).query(`UPDATE ${t.config.DATABASE_SCHEMA}.logistics_users SET is_active = false WHERE id = $1`, [user.id]);
      await me(tokens.access_token).expect(401);
      await refresh(tokens.refresh_token).expect(401);
      await login(user.email, user.password).expect(401);
    });
  });

  describe('users (admin only)', () => {
    it('creates users with a role and lists them with pagination', async () => {
      const admin = await session();
      const created = await t.http
        .post('/api/v1/logistics/users')
        .set('Authorization', `Bearer ${admin.access_token}`)
        .send({ email: 'Manager.X@Example.com', password: 'manager-pass', role: 'company_manager' })
        .expect(201);
      expect(created.body).toMatchObject({ email: 'manager.x@example.com', role: 'company_manager', full_name: null, is_active: true });
      expect(created.body).not.toHaveProperty('password_hash');

      const manager = await session('manager.x@example.com', 'manager-pass');
      expect(JSON.parse(Buffer.from(manager.access_token.split('.')[1], 'base64url').toString()).role).toBe('company_manager');

      const page1 = await t.http.get('/api/v1/logistics/users?page=1&limit=1').set('Authorization', `Bearer ${admin.access_token}`).expect(200);
      expect(page1.body).toMatchObject({ page: 1, limit: 1, items: [expect.objectContaining({ email: ADMIN.email })] });
      expect(page1.body.total).toBeGreaterThanOrEqual(2);
      const page2 = await t.http.get('/api/v1/logistics/users?page=2&limit=1').set('Authorization', `Bearer ${admin.access_token}`).expect(200);
      expect(page2.body.items).toHaveLength(1);
      expect(page2.body.items[0].email).not.toBe(ADMIN.email);
    });

    it('answers 409 {detail} on a duplicate email (any case)', async () => {
      const admin = await session();
      const res = await t.http
        .post('/api/v1/logistics/users')
        .set('Authorization', `Bearer ${admin.access_token}`)
        .send({ email: ADMIN.email.toUpperCase(), password: 'another-pass', role: 'driver' })
        .expect(409);
      expect(res.body).toEqual({ detail: 'A user with this email already exists' });
    });

    it('answers 422 {detail} for a bad role or query', async () => {
      const admin = await session();
      const res = await t.http
        .post('/api/v1/logistics/users')
        .set('Authorization', `Bearer ${admin.access_token}`)
        .send({ email: 'x@example.com', password: 'another-pass', role: 'pilot' })
        .expect(422);
      expect(res.body.detail).toMatch(/role/);
      await t.http.get('/api/v1/logistics/users?limit=1000').set('Authorization', `Bearer ${admin.access_token}`).expect(422);
    });

    it('answers 403 {detail} to non-admins and 401 without a token', async () => {
      const user = await newUser('terminal_operator');
      const tokens = await session(user.email, user.password);
      const list = await t.http.get('/api/v1/logistics/users').set('Authorization', `Bearer ${tokens.access_token}`).expect(403);
      expect(list.body).toEqual({ detail: expect.stringMatching(/admin/) });
      await t.http
        .post('/api/v1/logistics/users')
        .set('Authorization', `Bearer ${tokens.access_token}`)
        .send({ email: 'y@example.com', password: 'another-pass', role: 'admin' })
        .expect(403);
      await t.http.get('/api/v1/logistics/users').expect(401);
    });
  });

  describe('JWKS', () => {
    it('verifies a token issued by login through JwksVerifier over HTTP', async () => {
      await new Promise<void>((resolve) => t.app.getHttpServer().listen(0, '127.0.0.1', resolve));
      const { port } = t.app.getHttpServer().address() as AddressInfo;
      const jwks = await t.http.get('/.well-known/jwks.json').expect(200);
      expect(jwks.body.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: t.app.get(SigningKeys).kid });
      expect(jwks.body.keys[0]).not.toHaveProperty('d');

      const verifier = new JwksVerifier({ jwksUrl: `http://127.0.0.1:${port}/.well-known/jwks.json`, audience: 'logistics', issuer: 'auth-api' });
      const tokens = await session();
      await expect(verifier.verify(tokens.access_token)).resolves.toMatchObject({ role: 'admin', realm: 'logistics' });
      const fiscal = await t.http
        .post('/api/v1/auth/login')
        .set('X-Forwarded-For', freshIp())
        .type('form')
        .send({ username: FISCAL_ADMIN.email, password: FISCAL_ADMIN.password })
        .expect(200);
      await expect(verifier.verify(fiscal.body.access_token)).rejects.toMatchObject({ code: 'claims' });
    });
  });
});
