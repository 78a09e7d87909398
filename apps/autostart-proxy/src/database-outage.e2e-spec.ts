// autostart-proxy while its PostgreSQL connections are killed: a loopback TCP proxy between the app and
// the server resets every connection and refuses new ones (what the app sees of a server restart or
// of pg_terminate_backend on all its sessions). Requests that need the database answer 503 in the
// app's error shape at once, never hang; once the server is back the same process serves again.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, createTestDatabase, startTcpProxy, testServices, type TcpProxy, type TestApp, type TestDatabase } from '@platform/testing';
import type { AutostartProxyConfig } from './config';
import { autostartProxyService } from './service';

(testServices().embedded ? describe.skip : describe)('autostart-proxy with its database connections killed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'autostart-db-'));
  let database: TestDatabase;
  let proxy: TcpProxy;
  let t: TestApp<AutostartProxyConfig>;

  beforeAll(async () => {
    writeFileSync(
      join(dir, 'services.yaml'),
      'services:\n  - name: api\n    hosts: [api.test]\n    mode: async\n    upstream: http://127.0.0.1:9\n    provider: docker\n    target: api\n    healthCheck: /health\n',
    );
    database = await createTestDatabase();
    proxy = await startTcpProxy(database.url);
    t = await createTestApp(autostartProxyService, {
      DATABASE_URL: proxy.rewriteUrl(database.url),
      AUTOSTART_CONFIG: join(dir, 'services.yaml'),
      DOCKER_HOST: `unix://${join(dir, 'no-docker.sock')}`,
      AUTOSTART_IDLE_CHECK_MS: '3600000',
      DB_CONNECT_TIMEOUT_MS: '2000',
    });
  });

  afterAll(async () => {
    await t?.close();
    await proxy?.close();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 503 {error} while the connections are gone, and serves again without a restart', async () => {
    await t.http.get('/api/services/api/requests').expect(200);

    await proxy.cut({ newConnections: 'refuse' });
    const down = await t.http.get('/api/services/api/requests').expect(503);
    expect(down.body).toEqual({ error: expect.stringContaining('database is unavailable') });
    expect(down.headers['retry-after']).toBe('1');
    await t.http.get('/readyz').expect(503);

    await proxy.restore();
    await t.http.get('/api/services/api/requests').expect(200);
    const ready = await t.http.get('/readyz').expect(200);
    expect(ready.body.checks.database).toEqual({ status: 'up' });
  });
});
