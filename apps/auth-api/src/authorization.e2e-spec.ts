import { generateKeyPairSync } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createTestApp, describeAuthorizationMatrix, fetchDocument, operationsOf, type MatrixSetup } from '@platform/testing';
import { craftToken, freshIp } from '../test/helpers';
import type { AuthApiConfig } from './config';
import { SigningKeys } from './keys/signing-keys';
import { authApiService } from './service';

/**
 * Who may call what, for every operation of auth-api's OpenAPI document. The tenants are the two
 * realms: a token of one realm is "another tenant's" on the other realm's routes. Lesser roles:
 * fiscal `user` (owner: the fiscal `admin`), logistics `driver` (owner: the logistics `admin`).
 */

const FISCAL_ADMIN = { email: 'matrix-fiscal-admin@example.com', password: 'fiscal-admin-password' };
const FISCAL_USER = { email: 'matrix-fiscal-user@example.com', password: 'fiscal-user-password' };
const LOGISTICS_ADMIN = { email: 'matrix-ops-admin@example.com', password: 'ops-admin-password' };
const DRIVER = { email: 'matrix-driver@example.com', password: 'driver-password-1' };

interface Ctx {
  fiscalAdmin: string;
  fiscalUser: string;
  logisticsAdmin: string;
  driver: string;
  /** sessions of their own for the logout row (logging out revokes the session) */
  driverToLogOut: string;
  adminToLogOut: string;
  /** the fiscal admin's claims signed by a key that is not the service's */
  forgedFiscal: string;
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
let created = 0;

async function setup(): Promise<MatrixSetup<Ctx>> {
  const t = await createTestApp(authApiService, {
    AUTH_ADMIN_EMAIL: FISCAL_ADMIN.email,
    AUTH_ADMIN_PASSWORD: FISCAL_ADMIN.password,
    LOGISTICS_ADMIN_EMAIL: LOGISTICS_ADMIN.email,
    LOGISTICS_ADMIN_PASSWORD: LOGISTICS_ADMIN.password,
  });
  try {
    await t.app.listen(0, '127.0.0.1');
    const baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    await authApiService.commands!['create-user'].run(
      t.app,
      ['--realm', 'fiscal', '--email', FISCAL_USER.email, '--password', FISCAL_USER.password, '--role', 'user'],
      t.config as AuthApiConfig,
    );
    const fiscalLogin = async (u: typeof FISCAL_ADMIN) =>
      (
        await t.http
          .post('/api/v1/auth/login')
          .set('X-Forwarded-For', freshIp())
          .type('form')
          .send({ username: u.email, password: u.password })
          .expect(200)
      ).body.access_token as string;
    const logisticsLogin = async (u: typeof LOGISTICS_ADMIN) =>
      (await t.http.post('/api/v1/logistics/auth/login').set('X-Forwarded-For', freshIp()).send(u).expect(200)).body
        .access_token as string;
    const logisticsAdmin = await logisticsLogin(LOGISTICS_ADMIN);
    await t.http
        .post('/api/v1/logistics/users')
        .set(bearer(logisticsAdmin))
        .send({ ...DRIVER, role: 'driver', full_name: 'Matrix Driver' })
        .expect(201);
    const adminMe = (await t.http.get('/api/v1/logistics/auth/me').set(bearer(logisticsAdmin)).expect(200)).body as { id: string };

    // A token with the owner's claims and the service's kid, signed by a key that is not the service's.
    const forger = new SigningKeys(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
    const now = Math.floor(Date.now() / 1000);
    const forged = craftToken(
      forger,
      { sub: adminMe.id, email: LOGISTICS_ADMIN.email, role: 'admin', realm: 'logistics', aud: 'logistics', iss: 'auth-api', iat: now, exp: now + 600 },
      { kid: t.app.get(SigningKeys).kid },
    );

    const ctx: Ctx = {
      fiscalAdmin: await fiscalLogin(FISCAL_ADMIN),
      fiscalUser: await fiscalLogin(FISCAL_USER),
      logisticsAdmin,
      driver: await logisticsLogin(DRIVER),
      driverToLogOut: await logisticsLogin(DRIVER),
      adminToLogOut: await logisticsLogin(LOGISTICS_ADMIN),
      forgedFiscal: craftToken(
        forger,
        { sub: FISCAL_ADMIN.email, aud: 'fiscal', iss: 'auth-api', iat: now, exp: now + 600, jti: 'forged' },
        { kid: t.app.get(SigningKeys).kid },
      ),
    };
    const document = await fetchDocument(baseUrl);
    return {
      baseUrl,
      operations: operationsOf(document),
      document,
      // Defaults for the logistics routes; the fiscal rows present the other realm's tokens.
      callers: { wrong: bearer(forged), otherTenant: bearer(ctx.fiscalAdmin), lesserRole: bearer(ctx.driver) },
      owner: bearer(ctx.logisticsAdmin),
      secrets: [FISCAL_ADMIN.email, LOGISTICS_ADMIN.email, adminMe.id],
      ctx,
      close: () => t.close(),
    };
  } catch (err) {
    await t.close();
    throw err;
  }
}

/** The fiscal realm's callers: the other tenant is a logistics token, the lesser role a fiscal `user`. */
const fiscalCallers = (ctx: Ctx) => ({
  wrong: bearer(ctx.forgedFiscal),
  otherTenant: bearer(ctx.logisticsAdmin),
  lesserRole: bearer(ctx.fiscalUser),
  owner: bearer(ctx.fiscalAdmin),
});

describeAuthorizationMatrix<Ctx>('auth-api', setup, {
  'POST /api/v1/auth/login': {
    public: true,
    note: 'the form is the credential: a wrong password is 401 whatever token comes along',
    request: () => ({
      path: '/api/v1/auth/login',
      rawBody: new URLSearchParams({ username: FISCAL_ADMIN.email, password: 'not-the-password' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': freshIp() },
    }),
    expect: { none: 401, wrong: 401, otherTenant: 401, lesserRole: 401 },
    callers: fiscalCallers,
  },
  'GET /api/v1/auth/me': {
    note: 'a fiscal `user` reads itself, never the admin',
    request: () => ({ path: '/api/v1/auth/me' }),
    expect: { none: 401, wrong: 401, otherTenant: 401, lesserRole: 200 },
    owner: 200,
    callers: fiscalCallers,
  },
  'POST /api/v1/auth/refresh': {
    request: () => ({ path: '/api/v1/auth/refresh' }),
    expect: { none: 401, wrong: 401, otherTenant: 401, lesserRole: 200 },
    owner: 200,
    callers: fiscalCallers,
  },
  'POST /api/v1/logistics/auth/login': {
    public: true,
    note: 'the body is the credential: a wrong password is 401 whatever token comes along',
    request: () => ({
      path: '/api/v1/logistics/auth/login',
      body: { email: LOGISTICS_ADMIN.email, password: 'not-the-password' },
      headers: { 'x-forwarded-for': freshIp() },
    }),
    expect: { none: 401, wrong: 401, otherTenant: 401, lesserRole: 401 },
  },
  'POST /api/v1/logistics/auth/refresh': {
    public: true,
    note: 'the refresh token is the credential: a bearer token is no substitute for one',
    request: () => ({ path: '/api/v1/logistics/auth/refresh', body: { refresh_token: `lrt_${'x'.repeat(43)}` } }),
    expect: { none: 401, wrong: 401, otherTenant: 401, lesserRole: 401 },
  },
  'POST /api/v1/logistics/auth/logout': {
    note: 'a driver may end its own session (its own token, not the admin one)',
    request: () => ({ path: '/api/v1/logistics/auth/logout', body: {} }),
    expect: { none: 401, wrong: 401, otherTenant: 401, lesserRole: 204 },
    owner: 204,
    callers: (ctx) => ({ lesserRole: bearer(ctx.driverToLogOut), owner: bearer(ctx.adminToLogOut) }),
  },
  'GET /api/v1/logistics/auth/me': {
    note: 'a driver reads itself, never the admin',
    request: () => ({ path: '/api/v1/logistics/auth/me' }),
    expect: { none: 401, wrong: 401, otherTenant: 401, lesserRole: 200 },
    owner: 200,
  },
  'GET /api/v1/logistics/users': {
    request: () => ({ path: '/api/v1/logistics/users?page=1&limit=100' }),
    expect: { none: 401, wrong: 401, otherTenant: 401, lesserRole: 403 },
    owner: 200,
  },
  'POST /api/v1/logistics/users': {
    request: () => {
      created += 1;
      return { path: '/api/v1/logistics/users', body: { email: `matrix-new-${created}@example.com`, password: 'new-user-password', role: 'admin' } };
    },
    expect: { none: 401, wrong: 401, otherTenant: 401, lesserRole: 403 },
    owner: 201,
  },
  'GET /.well-known/jwks.json': {
    public: true,
    request: () => ({ path: '/.well-known/jwks.json' }),
    expect: { none: 200, wrong: 200, otherTenant: 200, lesserRole: 200 },
  },
});
