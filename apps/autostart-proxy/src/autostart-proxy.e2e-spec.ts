// autostart-proxy booted once on a throwaway database (createTestApp, migrations applied): the endpoints
// every service has answer.
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
});
