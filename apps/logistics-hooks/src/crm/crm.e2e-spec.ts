// POST /{crm}-data over HTTP on a throwaway PostgreSQL database: push (idempotent by id, merging,
// deleted: true), get, stats with configured stage names, the API key and malformed pushes.
import { createTestApp, type TestApp } from '@platform/testing';
import type { LogisticsHooksConfig } from '../config';
import { logisticsHooksService } from '../service';

const API_KEY = 'test-logistics-key-0123456789';

describe('CRM data hub', () => {
  let t: TestApp<LogisticsHooksConfig>;
  const post = (body: Record<string, unknown>) => t.http.post('/hubspot-data').send({ api_key: API_KEY, ...body });

  beforeAll(async () => {
    t = await createTestApp(logisticsHooksService, { LOGISTICS_API_KEY: API_KEY, LOGISTICS_CRM: 'hubspot', CRM_WON_STAGES: 'closedwon,Signed', CRM_MAX_OBJECTS_PER_PUSH: '20' });
  });
  afterAll(async () => t?.close());

  it('requires the API key and serves LOGISTICS_CRM only', async () => {
    await t.http.post('/hubspot-data').send({ action: 'stats' }).expect(401);
    await t.http.post('/crm-data').send({ api_key: API_KEY, action: 'stats' }).expect(404);
  });

  it('push stores objects by id; pushing again is idempotent and merges; deleted removes', async () => {
    const data = {
      accounts: [{ id: 'a1', name: 'Acme' }],
      contacts: [{ id: 1, name: 'Ana' }, { id: 2, name: 'Luis' }],
      deals: [
        { id: 'd1', amount: 1000, probability: 0.5, stage: 'proposal', owner: 'ana' },
        { id: 'd2', amount: 4000, stage: 'Signed', owner: 'ana' },
        { id: 'd3', amount: 500, stage: 'closedlost' },
      ],
      leads: [{ id: 'l1', status: 'new', source: 'web' }, { id: 'l2', status: 'converted', source: 'fair' }],
      tasks: [{ id: 't1', due_date: '2020-01-01', status: 'open' }, { id: 't2', due_date: '2099-01-01' }],
    };
    const first = await post({ action: 'push', data }).expect(200);
    expect(first.body).toMatchObject({ success: true, action: 'push', stored: { accounts: 1, contacts: 2, deals: 3, leads: 2, tasks: 2 } });
    await post({ action: 'push', data }).expect(200);
    const merged = await post({ action: 'push', data: { deals: [{ id: 'd1', stage: 'negotiation' }], contacts: [{ id: 2, deleted: true }] } }).expect(200);
    expect(merged.body).toMatchObject({ stored: { deals: 1 }, deleted: { contacts: 1 } });

    const got = await post({ action: 'get' }).expect(200);
    expect(got.body.counts).toEqual({ accounts: 1, contacts: 1, deals: 3, leads: 2, tasks: 2 });
    expect(got.body.data.deals.find((d: { id: string }) => d.id === 'd1')).toEqual({ id: 'd1', amount: 1000, probability: 0.5, stage: 'negotiation', owner: 'ana' });
    expect(got.body.data.contacts).toEqual([{ id: '1', name: 'Ana' }]);
    const page = await post({ action: 'get', kind: 'deals', limit: 2, offset: 1 }).expect(200);
    expect(Object.keys(page.body.data)).toEqual(['deals']);
    expect(page.body.data.deals).toHaveLength(2);
  });

  it('stats: every figure of the spec, with the configured won stages', async () => {
    const res = await post({ action: 'stats' }).expect(200);
    expect(res.body).toEqual({
      success: true,
      action: 'stats',
      total_pipeline: 1000,
      weighted_pipeline: 500,
      win_rate_pct: 50,
      avg_deal_size: 4000,
      open_leads: 1,
      overdue_tasks: 1,
      total_accounts: 1,
      total_contacts: 1,
      stage_breakdown: { negotiation: { count: 1, amount: 1000 }, Signed: { count: 1, amount: 4000 }, closedlost: { count: 1, amount: 500 } },
      lead_sources: { web: 1, fair: 1 },
      pipeline_by_owner: { ana: { count: 1, amount: 1000, weighted: 500 } },
    });
  });

  it.each([
    ['no data', { action: 'push' }, 'data'],
    ['an unknown kind', { action: 'push', data: { opportunities: [] } }, 'data.opportunities'],
    ['a kind that is not an array', { action: 'push', data: { deals: { id: 'x' } } }, 'data.deals'],
    ['an object without id', { action: 'push', data: { deals: [{ id: 'ok' }, { amount: 5 }] } }, 'data.deals[1].id'],
    ['too many objects', { action: 'push', data: { leads: Array.from({ length: 21 }, (_, i) => ({ id: `x${i}` })) } }, 'at most 20'],
    ['an unknown action', { action: 'sync' }, 'action'],
    ['a bad limit', { action: 'get', limit: 0 }, 'limit'],
  ])('refuses %s with 422 and stores nothing', async (_name, body, text) => {
    const before = (await post({ action: 'get' }).expect(200)).body.counts;
    const res = await post(body).expect(422);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(res.body.error)).toContain(text);
    expect((await post({ action: 'get' }).expect(200)).body.counts).toEqual(before);
  });

  it('concurrent identical pushes store one object', async () => {
    await Promise.all(Array.from({ length: 8 }, () => post({ action: 'push', data: { accounts: [{ id: 'same', name: 'Same' }] } }).expect(200)));
    const got = await post({ action: 'get', kind: 'accounts' }).expect(200);
    expect(got.body.data.accounts.filter((a: { id: string }) => a.id === 'same')).toHaveLength(1);
  });
});
