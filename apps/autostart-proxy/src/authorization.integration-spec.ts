// Who may call the proxy's own routes. Spec 002, part E shows no authentication, and Sablier's API,
// whose plugins call this proxy unchanged, has none: every operation is public and a credential changes
// nothing. What must still hold: what a client sends to a managed host (a token in the query string,
// an Authorization header) never shows in the proxy's own answers (the request history keeps paths
// without their query string, and no header). No tenants or roles: `otherTenant` and `lesserRole` do
// not apply.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, describeAuthorizationMatrix, fetchDocument, operationsOf, startFakeDockerEngine, type MatrixRow, type MatrixSetup } from '@platform/testing';
import { call, closeClients } from '../test/client';
import { startUpstream } from '../test/upstream';
import { autostartProxyService } from './service';

const QUERY_TOKEN = 'matrix-query-token-5f1e2d';
const HEADER_TOKEN = 'matrix-header-token-9a8b7c';

async function setup(): Promise<MatrixSetup<Record<string, never>>> {
  const engine = await startFakeDockerEngine({ containers: [{ name: 'web' }, { name: 'idle' }] });
  const running = (name: string) => () => engine.container(name).State.Running;
  const web = await startUpstream('web', running('web'));
  const idle = await startUpstream('idle', running('idle'));
  const dir = mkdtempSync(join(tmpdir(), 'autostart-matrix-'));
  writeFileSync(
    join(dir, 'services.yaml'),
    `services:
  - { name: web, hosts: [web.test], mode: async, upstream: '${web.url}', provider: docker, target: web, healthCheck: /health }
  - { name: idle, hosts: [idle.test], mode: async, upstream: '${idle.url}', provider: docker, target: idle, healthCheck: /health }
`,
  );
  const closeRest = async () => {
    closeClients();
    await web.close();
    await idle.close();
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  };
  const t = await createTestApp(autostartProxyService, {
    AUTOSTART_CONFIG: join(dir, 'services.yaml'),
    DOCKER_HOST: engine.dockerHost,
    AUTOSTART_HEALTH_POLL_MS: '50',
  }).catch(async (err: unknown) => {
    await closeRest();
    throw err;
  });
  try {
    await t.app.listen(0, '127.0.0.1');
    const baseUrl = await t.app.getUrl();
    // A client of the managed host sends its own credentials: the proxy answers 202 (starting) and keeps the request in its history.
    const routed = await call(baseUrl, `/private/report?token=${QUERY_TOKEN}`, { target: 'web.test', headers: { authorization: `Bearer ${HEADER_TOKEN}` } });
    expect(routed.status).toBe(202);
    // The history holds that request (its path), so the leak check below reads a history that has something to leak.
    let history = '';
    for (let i = 0; i < 100 && !history.includes('/private/report'); i++) {
      history = (await call(baseUrl, '/api/services/web/requests?limit=100')).text;
      if (!history.includes('/private/report')) await new Promise((r) => setTimeout(r, 50));
    }
    expect(history).toContain('/private/report');
    const document = await fetchDocument(baseUrl);
    return {
      baseUrl,
      operations: operationsOf(document),
      document,
      callers: { wrong: { Authorization: 'Bearer not-a-key-of-anything' }, otherTenant: {}, lesserRole: {} },
      secrets: [QUERY_TOKEN, HEADER_TOKEN],
      ctx: {},
      close: async () => {
        await t.close();
        await closeRest();
      },
    };
  } catch (err) {
    await t.close();
    await closeRest();
    throw err;
  }
}

const open = (status: number, path: string): MatrixRow<Record<string, never>> => ({
  public: true,
  note: 'no authentication (spec 002, part E shows none; Sablier has none); no tenants or roles',
  request: () => ({ path }),
  expect: { none: status, wrong: status },
});

describeAuthorizationMatrix('autostart-proxy', setup, {
  'GET /api/services': open(200, '/api/services'),
  'GET /api/services/{name}/requests': open(200, '/api/services/web/requests?limit=100'),
  'GET /health/{host}': open(503, '/health/idle.test'),
  'GET /api/strategies/dynamic': open(200, '/api/strategies/dynamic?names=web'),
  'GET /api/strategies/blocking': open(200, '/api/strategies/blocking?names=web&timeout=30s'),
  'GET /api/themes': open(200, '/api/themes'),
  'GET /api/dynamic/themes': open(200, '/api/dynamic/themes'),
  'GET /health': open(200, '/health'),
});
