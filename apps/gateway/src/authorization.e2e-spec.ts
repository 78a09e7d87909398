// Who may call what through the gateway. Its own routes are public (ARCHITECTURE.md: it lists the
// services and links their docs). On every prefix it forwards, the gateway authenticates nobody: the
// credential (a bearer token, an API key, a session cookie) reaches the service unchanged and the
// service's answer comes back unchanged — 401 without or with a wrong credential, 404 for another
// tenant's record, 403 for a lesser role, 200 for the owner — and the owner's data, fetched first,
// never reaches another caller (nothing is cached or shared across callers). The route list is the
// gateway's own OpenAPI document plus one `GET <prefix>/{path}` per service of the registry, so a
// service added behind the gateway without a row fails.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SERVICES_BEHIND_GATEWAY, upstreamEnvName } from '@platform/registry';
import { createTestApp, describeAuthorizationMatrix, fetchDocument, operationsOf, type MatrixRow, type MatrixSetup } from '@platform/testing';
import { gatewayService } from './service';

const TOKENS = { owner: 'owner-credential-7a1b', otherTenant: 'tenant-b-credential-2c3d', lesserRole: 'viewer-credential-4e5f', wrong: 'made-up-credential-6071' };
const RECORD = '/records/r-owner-1';
const OWNER_EMAIL = 'owner@tenant-a.test';

/**
 * A service behind the gateway as the real ones behave: the credential from `Authorization: Bearer`,
 * `X-API-Key` or the `session` cookie; the record belongs to tenant A, whose `viewer` may not read it.
 */
function fakeService(): http.Server {
  return http.createServer((req, res) => {
    const answer = (status: number, body: object, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    const credential =
      /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ??
      (req.headers['x-api-key'] as string | undefined) ??
      /(?:^|;\s*)session=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
    if (req.url !== RECORD) return answer(404, { error: 'not found' });
    if (!credential) return answer(401, { error: 'credential required' }, { 'www-authenticate': 'Bearer' });
    if (credential === TOKENS.owner) return answer(200, { id: 'r-owner-1', email: OWNER_EMAIL });
    if (credential === TOKENS.otherTenant) return answer(404, { error: 'not found' });
    if (credential === TOKENS.lesserRole) return answer(403, { error: 'forbidden' });
    return answer(401, { error: 'invalid credential' }, { 'www-authenticate': 'Bearer error="invalid_token"' });
  });
}

type Style = 'bearer' | 'apiKey' | 'cookie';
const present = (style: Style, token: string): Record<string, string> =>
  style === 'bearer' ? { Authorization: `Bearer ${token}` } : style === 'apiKey' ? { 'X-API-Key': token } : { Cookie: `session=${token}` };

async function setup(): Promise<MatrixSetup<Record<string, never>>> {
  const upstream = fakeService().listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const closeUpstream = async () => {
    const closed = new Promise((r) => upstream.close(r));
    upstream.closeAllConnections();
    await closed;
  };
  const env = Object.fromEntries(SERVICES_BEHIND_GATEWAY.map((s) => [upstreamEnvName(s.name), url]));
  const t = await createTestApp(gatewayService, env).catch(async (err: unknown) => {
    await closeUpstream();
    throw err;
  });
  try {
    await t.app.listen(0, '127.0.0.1');
    const baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    // The owner reads every prefix's record first: a gateway that cached or shared answers would hand it to the next caller.
    for (const s of SERVICES_BEHIND_GATEWAY) {
      for (const style of ['bearer', 'apiKey', 'cookie'] as const) {
        const res = await fetch(`${baseUrl}${s.prefix}${RECORD}`, { headers: present(style, TOKENS.owner) });
        if (res.status !== 200 || !(await res.text()).includes(OWNER_EMAIL)) throw new Error(`the owner's read through ${s.prefix} answered ${res.status}`);
      }
    }
    const document = await fetchDocument(baseUrl);
    return {
      baseUrl,
      operations: [...operationsOf(document), ...SERVICES_BEHIND_GATEWAY.map((s) => `GET ${s.prefix}/{path}`)].sort(),
      document,
      callers: { wrong: present('bearer', TOKENS.wrong), otherTenant: present('bearer', TOKENS.otherTenant), lesserRole: present('bearer', TOKENS.lesserRole) },
      owner: present('bearer', TOKENS.owner),
      secrets: [OWNER_EMAIL],
      ctx: {},
      close: async () => {
        await t.close();
        await closeUpstream();
      },
    };
  } catch (err) {
    await t.close();
    await closeUpstream();
    throw err;
  }
}

/** A forwarded prefix: the service's credential style, its statuses passed through unchanged. */
const forwarded = (prefix: string, style: Style): MatrixRow<Record<string, never>> => ({
  request: () => ({ path: `${prefix}${RECORD}` }),
  expect: { none: 401, wrong: 401, otherTenant: 404, lesserRole: 403 },
  owner: 200,
  callers: () => ({
    wrong: present(style, TOKENS.wrong),
    otherTenant: present(style, TOKENS.otherTenant),
    lesserRole: present(style, TOKENS.lesserRole),
    owner: present(style, TOKENS.owner),
  }),
});

describeAuthorizationMatrix('gateway', setup, {
  'GET /': {
    public: true,
    note: 'the list of services and their docs links, for anybody',
    request: () => ({ path: '/' }),
    expect: { none: 200, wrong: 200, otherTenant: 200, lesserRole: 200 },
  },
  'GET /automation/{path}': forwarded('/automation', 'bearer'),
  'GET /email/{path}': forwarded('/email', 'cookie'),
  'GET /knowledge/{path}': forwarded('/knowledge', 'apiKey'),
  'GET /auth/{path}': forwarded('/auth', 'bearer'),
  'GET /conversation/{path}': forwarded('/conversation', 'bearer'),
  'GET /transcribe/{path}': forwarded('/transcribe', 'bearer'),
  'GET /autostart/{path}': forwarded('/autostart', 'bearer'),
  'GET /logistics/{path}': forwarded('/logistics', 'bearer'),
  'GET /knowledge-mcp/{path}': forwarded('/knowledge-mcp', 'bearer'),
});
