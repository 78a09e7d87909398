// logistics-hooks booted once on a throwaway database (createTestApp, migrations applied): the endpoints
// every service has answer.
import { createTestApp, type TestApp } from '@platform/testing';
import type { LogisticsHooksConfig } from './config';
import { logisticsHooksService } from './service';

describe('logistics-hooks', () => {
  let t: TestApp<LogisticsHooksConfig>;

  beforeAll(async () => {
    t = await createTestApp(logisticsHooksService);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('answers /healthz', async () => {
    await t.http.get('/healthz').expect(200, { status: 'ok' });
  });

  it('answers /readyz with its database and broker up', async () => {
    const res = await t.http.get('/readyz').expect(200);
    expect(res.body).toMatchObject({ status: 'ok', checks: { database: { status: 'up' }, broker: { status: 'up' } } });
  });

  it('serves its Swagger UI and OpenAPI document', async () => {
    await t.http.get('/api/docs').expect(200).expect('content-type', /html/);
    const doc = await t.http.get('/api/docs-json').expect(200);
    expect(doc.body.info.title).toBe('logistics-hooks');
    expect(Object.keys(doc.body.paths).sort()).toEqual(
      [
        '/an-audit', '/ap-expectations', '/ap-invoice-process', '/api/chat/public', '/api/dashboard/stats', '/api/errors', '/api/errors/report', '/api/errors/stats',
        '/api/errors/{id}', '/api/track-public', '/crm-data', '/dashboard', '/dashboard/login', '/ocean-track', '/ops-batch-track', '/ops-email-report', '/ops-tasks',
      ].sort(),
    );
  });
});
