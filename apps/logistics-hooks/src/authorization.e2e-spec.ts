// The authorization matrix of logistics-hooks: every operation of its OpenAPI document sent with no
// credential, a wrong one, a token of auth-api's other realm and a logistics user who is no admin,
// each answered as the README documents it. The service has one tenant: the webhooks take the one
// service key (LOGISTICS_API_KEY), the error admin routes an admin token of the logistics realm
// (verified against a JWKS, here one served by the test with auth-api's claims). The public portal
// never shows anything of the internal tasks, errors or CRM records.
import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestApp, describeAuthorizationMatrix, fetchDocument, operationsOf, type MatrixRow, type TestApp } from '@platform/testing';
import { SignJWT, exportJWK } from 'jose';
import type { LogisticsHooksConfig } from './config';
import { logisticsHooksService } from './service';

const API_KEY = 'authz-logistics-key-0123456789';
const ISSUER = 'auth-api-authz';
const CONTAINER = 'CSQU3054383';
const TASK_SUBJECT = 'Internal: customs hold on CSQU3054383 4c7e';
const TASK_FROM = 'broker.internal.5e1a@example.com';
const TASK_BODY = 'internal margin note 8d2f for the booking';
const ERROR_MESSAGE = 'internal stack trace marker 3b9c';
const CRM_NAME = 'Internal CRM customer 6a0d';

interface Ctx {
  errorId: string;
  doomedErrorId: string;
  keyAuth: Record<string, string>;
  adminAuth: Record<string, string>;
}

let t: TestApp<LogisticsHooksConfig>;
let auth: Server;

/** auth-api as logistics-hooks sees it: its JWKS, and its login answering 401 to wrong credentials. */
async function startFakeAuthApi(publicJwk: Record<string, unknown>): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    if (req.url === '/.well-known/jwks.json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [publicJwk] }));
      return;
    }
    req.resume();
    req.on('end', () => res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: 'Invalid credentials' })));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

async function setup() {
  const kid = 'authz-key-1';
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const fake = await startFakeAuthApi({ ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' });
  auth = fake.server;
  const token = (claims: Record<string, unknown>, key = privateKey) =>
    new SignJWT({ email: 'someone@example.com', sid: randomUUID(), ...claims })
      .setProtectedHeader({ alg: 'RS256', kid })
      .setSubject(randomUUID())
      .setIssuer(ISSUER)
      .setAudience('logistics')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(key);

  t = await createTestApp(logisticsHooksService, { LOGISTICS_API_KEY: API_KEY, AUTH_JWKS_URL: `${fake.url}/.well-known/jwks.json`, AUTH_ISSUER: ISSUER });
  const server = t.app.getHttpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  try {
    return await prepare(baseUrl, token, other.privateKey);
  } catch (err) {
    await t.close();
    await new Promise((resolve) => auth.close(resolve));
    throw err;
  }
}

async function prepare(baseUrl: string, token: (claims: Record<string, unknown>, key?: KeyObject) => Promise<string>, otherKey: KeyObject) {
  const key = { 'X-API-Key': API_KEY };
  const call = async (path: string, body: object, status: number) => {
    const res = await t.http.post(path).set(key).send(body);
    if (res.status !== status) throw new Error(`setup: POST ${path} answered ${res.status} ${res.text}`);
    return res.body;
  };
  await call('/ops-tasks', { api_key: API_KEY, from: TASK_FROM, subject: TASK_SUBJECT, body: `${TASK_BODY} ${CONTAINER}` }, 201);
  const error = await call('/api/errors/report', { message: ERROR_MESSAGE, severity: 'error' }, 201);
  const doomed = await call('/api/errors/report', { message: 'doomed error' }, 201);
  await call('/crm-data', { action: 'push', data: { contacts: [{ id: 'c-authz-1', name: CRM_NAME, email: 'crm.customer.7f@example.com' }] } }, 200);

  const admin = { Authorization: `Bearer ${await token({ role: 'admin', realm: 'logistics' })}` };
  const document = await fetchDocument(baseUrl);
  return {
    baseUrl,
    operations: operationsOf(document),
    document,
    callers: {
      wrong: { 'X-API-Key': 'not-the-service-key-000000', Authorization: `Bearer ${await token({ role: 'admin', realm: 'logistics' }, otherKey)}` },
      otherTenant: { Authorization: `Bearer ${await token({ role: 'admin', realm: 'users' })}` },
      lesserRole: { Authorization: `Bearer ${await token({ role: 'driver', realm: 'logistics' })}` },
    },
    owner: admin,
    secrets: [TASK_SUBJECT, TASK_FROM, TASK_BODY, ERROR_MESSAGE, error.record.id, CRM_NAME, API_KEY],
    ctx: { errorId: error.record.id, doomedErrorId: doomed.record.id, keyAuth: key, adminAuth: admin } satisfies Ctx,
    close: async () => {
      await t.close();
      await new Promise((resolve) => auth.close(resolve));
    },
  };
}

/** A webhook of the one service key: another realm's admin token or a logistics user's token is no key. */
const keyRow = (path: string, body: unknown, owner?: number, note = ''): MatrixRow<Ctx> => ({
  request: () => ({ path, body }),
  expect: { none: 401, wrong: 401, otherTenant: 401, lesserRole: 401 },
  ...(owner !== undefined ? { owner, callers: (c) => ({ owner: c.keyAuth }) } : {}),
  note: `one service key, no roles: any token is no key${note ? `; ${note}` : ''}`,
});
/** An admin route of the error dashboard: a token of the users realm is refused like a forged one; a logistics user who is no admin 403. */
const adminRow = (request: MatrixRow<Ctx>['request'], owner: number): MatrixRow<Ctx> => ({
  request,
  expect: { none: 401, wrong: 401, otherTenant: 401, lesserRole: 403 },
  owner,
});
const publicRow = (request: MatrixRow<Ctx>['request'], status: number, note: string): MatrixRow<Ctx> => ({
  request,
  expect: { none: status, wrong: status, otherTenant: status, lesserRole: status },
  public: true,
  note,
});

const rows: Record<string, MatrixRow<Ctx>> = {
  'POST /ops-tasks': keyRow('/ops-tasks', { from: 'a@example.com', subject: 'Another task', body: 'text' }, 201),
  'POST /api/errors/report': keyRow('/api/errors/report', { message: 'another error' }, 201),
  'POST /ocean-track': keyRow('/ocean-track', { tracking_number: CONTAINER }, undefined, 'the owner\'s answer depends on the carriers (not configured here)'),
  'POST /ops-batch-track': keyRow('/ops-batch-track', { shipments: [{ unit: 'TRK-1' }] }, 200, 'a shipment without a feed: nothing fetched'),
  'POST /ops-email-report': keyRow('/ops-email-report', { to: '', subject: 'Report', data: {} }, 200, 'an empty `to` answers the html, unsent'),
  'POST /crm-data': keyRow('/crm-data', { action: 'stats' }, 200),
  'POST /ap-invoice-process': keyRow('/ap-invoice-process', { file_base64: Buffer.from('not a pdf').toString('base64') }, 422, 'a file that is no invoice: the owner gets 422 Rejected'),
  'POST /ap-expectations': keyRow('/ap-expectations', { expectations: [], payments: [] }, 200),
  'POST /an-audit': keyRow('/an-audit', { notice: { job_type: 'freight', containers: [CONTAINER], consignee: 'Importadora SA', eta: '2026-11-29', telex_release: true, charges: [{ description: 'Ocean freight', amount: 1200, currency: 'USD' }] } }, 200),

  'GET /api/errors': adminRow(() => ({ path: '/api/errors' }), 200),
  'GET /api/errors/stats': adminRow(() => ({ path: '/api/errors/stats' }), 200),
  'PATCH /api/errors/{id}': adminRow((c) => ({ path: `/api/errors/${c.errorId}`, body: { notes: 'looked at' } }), 200),
  'DELETE /api/errors/{id}': adminRow((c) => ({ path: `/api/errors/${c.doomedErrorId}` }), 200),

  'GET /dashboard': publicRow(() => ({ path: '/dashboard' }), 200, 'the page (it logs in itself): no data in it'),
  'POST /dashboard/login': publicRow(() => ({ path: '/dashboard/login', body: { email: 'admin@example.com', password: 'wrong-password' } }), 401, 'credentials checked by auth-api: wrong ones 401 INVALID_CREDENTIALS'),
  'GET /api/dashboard/stats': publicRow(() => ({ path: '/api/dashboard/stats' }), 200, 'the public portal: counts only'),
  'POST /api/track-public': publicRow(() => ({ path: '/api/track-public', body: { tracking_number: CONTAINER } }), 200, 'the public portal: shipment facts only, never the task that names the container'),
  'POST /api/chat/public': publicRow(() => ({ path: '/api/chat/public', body: { message: `Where is ${CONTAINER}? Any customs hold?` } }), 200, 'the public portal: FAQ and shipment facts only'),
};

describeAuthorizationMatrix('logistics-hooks', setup, rows);
