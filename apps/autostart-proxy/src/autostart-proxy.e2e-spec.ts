// autostart-proxy booted once on a throwaway database (createTestApp, migrations applied): the endpoints
// every service has answer; a bad services file stops the start with every problem named.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, type TestApp } from '@platform/testing';
import type { AutostartProxyConfig } from './config';
import { autostartProxyService } from './service';

describe('autostart-proxy', () => {
  let t: TestApp<AutostartProxyConfig>;

  beforeAll(async () => {
    t = await createTestApp(autostartProxyService);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('answers /healthz', async () => {
    await t.http.get('/healthz').expect(200, { status: 'ok' });
  });

  it('answers /readyz with its database up', async () => {
    const res = await t.http.get('/readyz').expect(200);
    expect(res.body).toMatchObject({ status: 'ok', checks: { database: { status: 'up' } } });
  });

  it('serves its Swagger UI and OpenAPI document', async () => {
    await t.http.get('/api/docs').expect(200).expect('content-type', /html/);
    const doc = await t.http.get('/api/docs-json').expect(200);
    expect(doc.body.info.title).toBe('autostart-proxy');
  });

  it('lists no service and starts nothing without AUTOSTART_CONFIG; an unknown target is 404', async () => {
    await t.http.get('/api/services').expect(200, { totalServices: 0, idleTimeout: 1800, services: [] });
    await t.http.get('/').set('x-autostart-target', 'whisper.example.com').expect(404);
    await t.http.get('/health/whisper.example.com').expect(404);
  });

  it('refuses to start with a bad services file, naming every problem', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'autostart-bad-'));
    try {
      const file = join(dir, 'services.yaml');
      writeFileSync(file, 'services:\n  - name: whisper\n    hosts: [whisper.example.com]\n    mode: lazy\n    provider: docker\n');
      await expect(createTestApp(autostartProxyService, { AUTOSTART_CONFIG: file })).rejects.toThrow(
        /mode: must be dynamic[\s\S]*upstream: required[\s\S]*target: required[\s\S]*healthCheck: required/,
      );
      await expect(createTestApp(autostartProxyService, { AUTOSTART_CONFIG: join(dir, 'missing.yaml') })).rejects.toThrow(/AUTOSTART_CONFIG: cannot read .*missing\.yaml/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
