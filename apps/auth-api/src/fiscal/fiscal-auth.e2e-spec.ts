import { createTestApp, type TestApp } from '@platform/testing';
import { DataSource } from 'typeorm';
import { craftToken, freshIp } from '../../test/helpers';
import type { AuthApiConfig } from '../config';
import { SigningKeys } from '../keys/signing-keys';
import { authApiService } from '../service';

const ADMIN = { email: 'Admin@Example.com', password: 'admin-password-1' };
const LOGISTICS_ADMIN = { email: 'ops@example.com', password: 'ops-password-1' };

describe('part B login API (e2e)', () => {
  let t: TestApp<AuthApiConfig>;
  let keys: SigningKeys;

  beforeAll(async () => {
    t = await createTestApp(authApiService, {
      AUTH_ADMIN_EMAIL: ADMIN.email,
      AUTH_ADMIN_PASSWORD: ADMIN.password,
      LOGISTICS_ADMIN_EMAIL: LOGISTICS_ADMIN.email,
      LOGISTICS_ADMIN_PASSWORD: LOGISTICS_ADMIN.password,
      AUTH_LOGIN_LIMIT_PER_IP: '25', // the default (100) in unit tests; a smaller one keeps this file fast
    });
    keys = t.app.get(SigningKeys);
  });
  afterAll(() => t?.close());

  const login = (username: string, password: string, ip = freshIp()) =>
    t.http.post('/api/v1/auth/login').set('X-Forwarded-For', ip).type('form').send({ username, password });

  async function token(): Promise<string> {
    const res = await login(ADMIN.email, ADMIN.password).expect(200);
    return res.body.access_token as string;
  }

  describe('POST /api/v1/auth/login', () => {
    it('returns a bearer token for the right form credentials (email case-insensitive)', async () => {
      const res = await login('admin@example.com', ADMIN.password).expect(200);
      expect(res.body).toEqual({ access_token: expect.any(String), token_type: 'bearer' });
      const [header, payload] = (res.body.access_token as string).split('.').slice(0, 2).map((s) => JSON.parse(Buffer.from(s, 'base64url').toString()));
      expect(header).toMatchObject({ alg: 'RS256', kid: keys.kid });
      expect(payload).toMatchObject({ sub: 'admin@example.com', aud: 'fiscal' });
      expect(payload.exp - payload.iat).toBe(24 * 3600);
    });

    it('accepts the standard OAuth2 password-grant fields', async () => {
      await t.http
        .post('/api/v1/auth/login')
        .set('X-Forwarded-For', freshIp())
        .type('form')
        .send({ grant_type: 'password', username: ADMIN.email, password: ADMIN.password, scope: '' })
        .expect(200);
    });

    it.each([
      ['a wrong password', ADMIN.email, 'wrong-password'],
      ['an unknown email', 'nobody@example.com', ADMIN.password],
    ])('answers 401 {detail} with WWW-Authenticate for %s', async (_case, username, password) => {
      const res = await login(username, password).expect(401);
      expect(res.body).toEqual({ detail: 'Incorrect email or password' });
      expect(res.headers['www-authenticate']).toBe('Bearer');
    });

    it('answers 422 {detail} naming a missing form field', async () => {
      const res = await t.http.post('/api/v1/auth/login').set('X-Forwarded-For', freshIp()).type('form').send({ username: ADMIN.email }).expect(422);
      expect(Object.keys(res.body)).toEqual(['detail']);
      expect(res.body.detail).toMatch(/password/);
    });

    it('answers 422 {detail} for an empty body', async () => {
      const res = await t.http.post('/api/v1/auth/login').set('X-Forwarded-For', freshIp()).type('form').send('').expect(422);
      expect(res.body.detail).toMatch(/username/);
    });

    it('answers 422 {detail} to a JSON body: the login is a urlencoded form', async () => {
      const res = await t.http
        .post('/api/v1/auth/login')
        .set('X-Forwarded-For', freshIp())
        .send({ username: ADMIN.email, password: ADMIN.password })
        .expect(422);
      expect(res.body).toEqual({ detail: expect.stringMatching(/application\/x-www-form-urlencoded/) });
    });

    it('does not count successful logins against the limits', async () => {
      const ip = freshIp();
      for (let i = 0; i < 12; i++) await login(ADMIN.email, ADMIN.password, ip).expect(200);
    });

    it('limits failed attempts per IP and account: 429 {detail} with Retry-After, also for the right password', async () => {
      const ip = freshIp();
      for (let i = 0; i < 10; i++) await login(ADMIN.email, 'wrong-password', ip).expect(401);
      const res = await login(ADMIN.email, ADMIN.password, ip).expect(429);
      expect(res.body).toEqual({ detail: expect.stringMatching(/Too many login attempts/) });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      // the same account from another client is not affected
      await login(ADMIN.email, ADMIN.password).expect(200);
    });

    it('limits attempts per IP across accounts', async () => {
      const ip = freshIp();
      for (let i = 0; i < 25; i++) await login(`user${i}@example.com`, 'x', ip).expect(401);
      await login(ADMIN.email, ADMIN.password, ip).expect(429);
    });
  });

  describe('GET /api/v1/auth/me', () => {
    it('returns the user of the token', async () => {
      const res = await t.http.get('/api/v1/auth/me').set('Authorization', `Bearer ${await token()}`).expect(200);
      expect(res.body).toEqual({
        id: expect.any(Number),
        email: 'admin@example.com',
        full_name: 'Administrator',
        role: 'admin',
        is_active: true,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
      });
    });

    const now = () => Math.floor(Date.now() / 1000);
    const cases: Array<[string, () => Record<string, string>]> = [
      ['no Authorization header', () => ({})],
      ['a malformed token', () => ({ Authorization: 'Bearer not.a.jwt' })],
      ['another scheme', () => ({ Authorization: 'Basic YWRtaW46cGFzcw==' })],
      [
        'an expired token',
        () => ({
          Authorization: `Bearer ${craftToken(keys, { sub: 'admin@example.com', iat: now() - 90_000, exp: now() - 3_600, aud: 'fiscal', iss: 'auth-api' })}`,
        }),
      ],
      [
        'a token with a bad signature',
        () => {
          const valid = craftToken(keys, { sub: 'admin@example.com', iat: now(), exp: now() + 600, aud: 'fiscal', iss: 'auth-api' });
          const [h, p, s] = valid.split('.');
          const tampered = Buffer.from(s, 'base64url');
          tampered[0] ^= 0xff;
          return { Authorization: `Bearer ${h}.${p}.${tampered.toString('base64url')}` };
        },
      ],
      [
        'a token for an unknown user',
        () => ({ Authorization: `Bearer ${craftToken(keys, { sub: 'ghost@example.com', iat: now(), exp: now() + 600, aud: 'fiscal', iss: 'auth-api' })}` }),
      ],
      [
        'an HS256 token',
        () => {
          const h = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
          const p = Buffer.from(JSON.stringify({ sub: 'admin@example.com', exp: now() + 600, aud: 'fiscal', iss: 'auth-api' })).toString('base64url');
          return { Authorization: `Bearer ${h}.${p}.c2lnbmF0dXJl` };
        },
      ],
    ];
    it.each(cases)('answers 401 {detail: "Could not validate credentials"} for %s', async (_case, headers) => {
      const res = await t.http.get('/api/v1/auth/me').set(headers()).expect(401);
      expect(res.body).toEqual({ detail: 'Could not validate credentials' });
      expect(res.headers['www-authenticate']).toBe('Bearer');
    });

    it('refuses a logistics-realm token', async () => {
      const res = await t.http
        .post('/api/v1/logistics/auth/login')
        .set('X-Forwarded-For', freshIp())
        .send(LOGISTICS_ADMIN)
        .expect(200);
      await t.http.get('/api/v1/auth/me').set('Authorization', `Bearer ${res.body.access_token}`).expect(401);
    });
  });

  describe('POST /api/v1/auth/refresh', () => {
    it('issues a new token for a valid one', async () => {
      const first = await token();
      const res = await t.http.post('/api/v1/auth/refresh').set('Authorization', `Bearer ${first}`).expect(200);
      expect(res.body).toEqual({ access_token: expect.any(String), token_type: 'bearer' });
      expect(res.body.access_token).not.toBe(first);
      await t.http.get('/api/v1/auth/me').set('Authorization', `Bearer ${res.body.access_token}`).expect(200);
    });

    it('answers 401 without a valid token', async () => {
      const res = await t.http.post('/api/v1/auth/refresh').expect(401);
      expect(res.body).toEqual({ detail: 'Could not validate credentials' });
    });
  });

  describe('inactive users', () => {
    it('cannot log in, and their tokens stop working', async () => {
      const email = 'inactive@example.com';
      await authApiService.commands!['create-user'].run(
        t.app,
        ['--realm', 'fiscal', '--email', email, '--password', 'inactive-pass-1', '--full-name', 'Ina Active'],
        t.config,
      );
      const issued = (await login(email, 'inactive-pass-1').expect(200)).body.access_token as string;
      await t.http.get('/api/v1/auth/me').set('Authorization', `Bearer ${issued}`).expect(200);

      await t.app.get(DataSource).query(`UPDATE ${t.config.DATABASE_SCHEMA}.users SET is_active = false WHERE email = $1`, [email]);

      expect((await login(email, 'inactive-pass-1').expect(401)).body).toEqual({ detail: 'Incorrect email or password' });
      expect((await t.http.get('/api/v1/auth/me').set('Authorization', `Bearer ${issued}`).expect(401)).body).toEqual({
        detail: 'Could not validate credentials',
      });
      await t.http.post('/api/v1/auth/refresh').set('Authorization', `Bearer ${issued}`).expect(401);
    });
  });

  it('believes X-Forwarded-For only from loopback and private-network peers (the gateway, an ingress)', () => {
    const trust = t.app.getHttpAdapter().getInstance().get('trust proxy fn') as (addr: string, hop: number) => boolean;
    expect(trust('127.0.0.1', 0)).toBe(true);
    expect(trust('10.1.2.3', 0)).toBe(true);
    expect(trust('::1', 0)).toBe(true);
    expect(trust('203.0.113.9', 0)).toBe(false);
  });

  it('documents every route in Swagger, the login form as urlencoded', async () => {
    const doc = (await t.http.get('/api/docs-json').expect(200)).body;
    for (const path of [
      '/api/v1/auth/login',
      '/api/v1/auth/me',
      '/api/v1/auth/refresh',
      '/api/v1/logistics/auth/login',
      '/api/v1/logistics/auth/refresh',
      '/api/v1/logistics/auth/logout',
      '/api/v1/logistics/auth/me',
      '/api/v1/logistics/users',
      '/.well-known/jwks.json',
    ]) {
      expect(doc.paths).toHaveProperty([path]);
    }
    expect(doc.paths['/api/v1/auth/login'].post.requestBody.content).toHaveProperty(['application/x-www-form-urlencoded']);
  });
});
