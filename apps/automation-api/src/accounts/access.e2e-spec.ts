import { DataSource } from 'typeorm';
import { startAutomationApp, type AutomationTestContext } from '../../test/automation-app';
import { automationApiService } from '../service';
import { AccountsService } from './accounts.service';

const CONTACT_FIELDS = [
  'ig_id', 'username', 'name', 'follows', 'tags', 'email', 'notes', 'comment_count', 'dm_count', 'first_seen_at', 'last_seen_at',
  'last_inbound_at', 'source', 'imported_from',
].sort();
const EVENT_FIELDS = ['id', 'created_at', 'kind', 'username', 'automation_id', 'run_id', 'text', 'ref'].sort();

describe('accounts, keys, isolation, contacts and events (e2e)', () => {
  let ctx: AutomationTestContext;
  const as = (key: string) => ({ authorization: `Bearer ${key}` });
  const A = () => as(ctx.keyA);
  const B = () => as(ctx.keyB);

  beforeAll(async () => {
    ctx = await startAutomationApp();
  });
  afterAll(() => ctx?.close());

  describe('authentication', () => {
    const endpoints: Array<[string, string]> = [
      ['get', '/api/v1/status'],
      ['get', '/api/v1/posts'],
      ['get', '/api/v1/automations'],
      ['post', '/api/v1/automations'],
      ['get', '/api/v1/automations/1'],
      ['patch', '/api/v1/automations/1'],
      ['delete', '/api/v1/automations/1'],
      ['post', '/api/v1/automations/1/go_live'],
      ['post', '/api/v1/automations/1/pause'],
      ['post', '/api/v1/automations/1/resume'],
      ['post', '/api/v1/automations/1/attach'],
      ['post', '/api/v1/automations/1/finish_migration'],
      ['post', '/api/v1/automations/import'],
      ['get', '/api/v1/automations/1/funnel'],
      ['get', '/api/v1/funnel'],
      ['get', '/api/v1/contacts'],
      ['get', '/api/v1/contacts/x'],
      ['patch', '/api/v1/contacts/x'],
      ['get', '/api/v1/posts/1/comments'],
      ['get', '/api/v1/events'],
      ['post', '/api/v1/preview'],
    ];
    it.each(endpoints)('%s %s answers 401 {error} without a key, with a bad key, and with a non-bearer scheme', async (method, path) => {
      const http = ctx.t.http as unknown as Record<string, (p: string) => import('supertest').Test>;
      for (const headers of [{}, as('not-a-key'), { authorization: `Basic ${ctx.keyA}` }, { 'x-api-key': ctx.keyA }]) {
        const res = await http[method](path).set(headers);
        expect(res.status).toBe(401);
        expect(Object.keys(res.body)).toEqual(['error']);
        expect(res.body.error).toEqual(expect.any(String));
      }
    });

    it('stores keys hashed only', async () => {
      const rows: Array<{ key_hash: string }> = await ctx.ds.query(`SELECT key_hash FROM ${ctx.schema}.api_keys`);
      expect(rows.length).toBeGreaterThanOrEqual(2);
      for (const r of rows) {
        expect(r.key_hash).toMatch(/^[0-9a-f]{64}$/);
        expect(r.key_hash).not.toBe(ctx.keyA);
        expect(r.key_hash).not.toBe(ctx.keyB);
      }
    });

    it('the first account is created idempotently at every start', async () => {
      await ctx.t.app.get(AccountsService).onApplicationBootstrap();
      const rows = await ctx.ds.query(`SELECT account_id FROM ${ctx.schema}.api_keys WHERE label = 'AUTOMATION_API_KEY'`);
      expect(rows).toEqual([{ account_id: ctx.accountId('a') }]);
      const [account] = await ctx.ds.query(`SELECT graph_url, ig_user_id, access_token, public_base_url FROM ${ctx.schema}.accounts WHERE id = $1`, [
        ctx.accountId('a'),
      ]);
      expect(account).toEqual({ graph_url: ctx.fakeA.url, ig_user_id: ctx.fakeA.state.account.user_id, access_token: 'token-a', public_base_url: 'https://automation.example.com' });
    });

    it('create-account prints a new key that works', async () => {
      const command = automationApiService.commands!['create-account'];
      const chunks: string[] = [];
      const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
        chunks.push(String(chunk));
        return true;
      });
      try {
        await command.run(ctx.t.app, ['third'], ctx.t.config);
      } finally {
        spy.mockRestore();
      }
      const key = /API key: (\S+)/.exec(chunks.join(''))?.[1];
      expect(key).toBeDefined();
      const res = await ctx.t.http.get('/api/v1/automations').set(as(key!));
      expect(res.status).toBe(200);
      expect(res.body).toEqual([]);
    });
  });

  describe('token refresh and webhook subscription (for the engine and MCP)', () => {
    it('stores the refreshed token and its expiry; later calls use it', async () => {
      const accounts = ctx.t.app.get(AccountsService);
      const account = (await accounts.findById(ctx.accountId('b')))!;
      const refreshed = await accounts.refreshToken(account);
      expect(refreshed.access_token).toBe(ctx.fakeB.state.accessToken);
      expect(refreshed.access_token).not.toBe('token-b');
      const status = await ctx.t.http.get('/api/v1/status').set(B());
      expect(status.body).toMatchObject({ account_status: 'connected', problem: null, token_expires_in_days: 59 });
      expect(await accounts.subscribeWebhooks(refreshed)).toEqual(['comments', 'messages', 'messaging_postbacks']);
    });
  });

  describe('isolation between two accounts', () => {
    let automationA: number;

    beforeAll(async () => {
      const created = await ctx.t.http.post('/api/v1/automations').set(A()).send({ name: 'A only', keywords: ['secret'], link_url: 'https://example.com/a' });
      automationA = created.body.automation.id;
      await ctx.t.http.post(`/api/v1/automations/${automationA}/go_live`).set(A()).expect(200);
      await ctx.insertRun('a', automationA, { link_sent_at: new Date() });
      await ctx.t.http.post('/api/v1/automations/import').set(A()).send({ source: 'tool', contacts: [{ ig_id: 'contact-a', username: 'only_a' }] }).expect(201);
    });

    it('B sees none of A automations, and cannot act on them', async () => {
      expect((await ctx.t.http.get('/api/v1/automations').set(B())).body).toEqual([]);
      for (const [method, path] of [
        ['get', `/api/v1/automations/${automationA}`],
        ['patch', `/api/v1/automations/${automationA}`],
        ['delete', `/api/v1/automations/${automationA}`],
        ['post', `/api/v1/automations/${automationA}/go_live`],
        ['post', `/api/v1/automations/${automationA}/pause`],
        ['post', `/api/v1/automations/${automationA}/resume`],
        ['post', `/api/v1/automations/${automationA}/attach`],
        ['post', `/api/v1/automations/${automationA}/finish_migration`],
        ['get', `/api/v1/automations/${automationA}/funnel`],
      ] as const) {
        const res = await (ctx.t.http as any)[method](path).set(B()).send(method === 'patch' ? { name: 'hijack' } : undefined);
        expect(res.status).toBe(404);
      }
      const stillA = await ctx.t.http.get(`/api/v1/automations/${automationA}`).set(A());
      expect(stillA.body).toMatchObject({ name: 'A only', status: 'active' });
    });

    it('B funnel, preview, contacts, events and status count only B data', async () => {
      const funnel = await ctx.t.http.get('/api/v1/funnel').set(B());
      expect(funnel.body).toEqual([expect.objectContaining({ id: null, triggered: 0, active: 0 })]);
      expect((await ctx.t.http.post('/api/v1/preview').set(B()).send({ text: 'secret' })).body.match).toBeNull();
      expect((await ctx.t.http.post('/api/v1/preview').set(A()).send({ text: 'secret' })).body.match.automation_id).toBe(automationA);
      expect((await ctx.t.http.post('/api/v1/preview').set(B()).send({ text: 'secret', automation_id: automationA })).status).toBe(404);
      expect((await ctx.t.http.get('/api/v1/contacts').set(B())).body).toEqual({ data: [], next_cursor: null });
      expect((await ctx.t.http.get('/api/v1/contacts/contact-a').set(B())).status).toBe(404);
      expect((await ctx.t.http.patch('/api/v1/contacts/contact-a').set(B()).send({ notes: 'x' })).status).toBe(404);
      expect((await ctx.t.http.get('/api/v1/events').set(B())).body).toEqual({ data: [], next_cursor: null });
      expect((await ctx.t.http.get(`/api/v1/events?automation_id=${automationA}`).set(B())).body.data).toEqual([]);
      const status = await ctx.t.http.get('/api/v1/status').set(B());
      expect(status.body.counts).toMatchObject({ automations: 0, contacts: 0, runs: 0, events: 0 });
      expect(status.body.username).toBe('brand_b');
    });

    it('B posts and comments come from B connected account only', async () => {
      const mediaA = ctx.fakeA.addMedia({ caption: 'A post' });
      const mediaB = ctx.fakeB.addMedia({ caption: 'B post' });
      const postsB = await ctx.t.http.get('/api/v1/posts').set(B());
      expect(postsB.body.map((p: { id: string }) => p.id)).toEqual([mediaB.id]);
      const postsA = await ctx.t.http.get('/api/v1/posts').set(A());
      expect(postsA.body.map((p: { id: string }) => p.id)).toContain(mediaA.id);
      expect(postsA.body.map((p: { id: string }) => p.id)).not.toContain(mediaB.id);
      expect(ctx.fakeB.requestsTo('/media').every((r) => r.headers.authorization === `Bearer ${ctx.fakeB.state.accessToken}`)).toBe(true);
      expect(ctx.fakeA.requests.every((r) => r.headers.authorization !== `Bearer ${ctx.fakeB.state.accessToken}`)).toBe(true);
      expect((await ctx.t.http.get(`/api/v1/posts/${mediaA.id}/comments`).set(B())).status).toBe(404);
    });
  });

  describe('contacts', () => {
    beforeAll(async () => {
      const accountId = ctx.accountId('a');
      for (let i = 1; i <= 5; i++) {
        await ctx.ds.query(
          `INSERT INTO ${ctx.schema}.contacts (account_id, ig_id, username, name, tags, follows, comment_count, dm_count, last_inbound_at)
           VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, now())`,
          [accountId, `c-${i}`, `user_${i}`, `Person ${i}`, JSON.stringify(i % 2 ? ['buyer'] : []), i % 2, i, i * 2],
        );
      }
    });

    it('lists with every Contact field, search, tag filter and cursor pagination', async () => {
      const first = await ctx.t.http.get('/api/v1/contacts?limit=2').set(A());
      expect(first.status).toBe(200);
      expect(Object.keys(first.body.data[0]).sort()).toEqual(CONTACT_FIELDS);
      expect(first.body.data).toHaveLength(2);
      expect(first.body.next_cursor).toEqual(expect.any(String));
      const seen: string[] = first.body.data.map((c: { ig_id: string }) => c.ig_id);
      let cursor: string | null = first.body.next_cursor;
      while (cursor) {
        const page = await ctx.t.http.get(`/api/v1/contacts?limit=2&cursor=${cursor}`).set(A());
        seen.push(...page.body.data.map((c: { ig_id: string }) => c.ig_id));
        cursor = page.body.next_cursor;
      }
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toEqual(expect.arrayContaining(['c-1', 'c-2', 'c-3', 'c-4', 'c-5', 'contact-a']));

      const search = await ctx.t.http.get('/api/v1/contacts?search=USER_3').set(A());
      expect(search.body.data.map((c: { ig_id: string }) => c.ig_id)).toEqual(['c-3']);
      expect(search.body.data[0]).toMatchObject({ username: 'user_3', name: 'Person 3', follows: 1, comment_count: 3, dm_count: 6, tags: ['buyer'] });
      const tagged = await ctx.t.http.get('/api/v1/contacts?tag=buyer').set(A());
      expect(tagged.body.data.map((c: { ig_id: string }) => c.ig_id).sort()).toEqual(['c-1', 'c-3', 'c-5']);
      expect((await ctx.t.http.get('/api/v1/contacts?search=100%25').set(A())).body.data).toEqual([]);
      expect((await ctx.t.http.get('/api/v1/contacts?limit=0').set(A())).status).toBe(400);
      expect((await ctx.t.http.get('/api/v1/contacts?cursor=!!').set(A())).status).toBe(400);
    });

    it('GET and PATCH one contact (tags, notes, email)', async () => {
      const got = await ctx.t.http.get('/api/v1/contacts/c-2').set(A());
      expect(got.body).toMatchObject({ ig_id: 'c-2', follows: 0, email: null, notes: null, source: null, imported_from: null });
      const changed = await ctx.t.http.patch('/api/v1/contacts/c-2').set(A()).send({ tags: ['vip', 'vip', 'x'], notes: 'met at fair', email: 'Ann@Example.com' });
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({ tags: ['vip', 'x'], notes: 'met at fair', email: 'ann@example.com' });
      expect((await ctx.t.http.patch('/api/v1/contacts/c-2').set(A()).send({ email: 'not-an-email' })).body.error).toContain('email');
      expect((await ctx.t.http.patch('/api/v1/contacts/c-2').set(A()).send({ username: 'x' })).status).toBe(400);
      expect((await ctx.t.http.patch('/api/v1/contacts/c-2').set(A()).send({ email: null })).body.email).toBeNull();
      expect((await ctx.t.http.get('/api/v1/contacts/missing').set(A())).status).toBe(404);
    });
  });

  describe('events', () => {
    it('lists the activity log newest first with every Event field, filters and pagination', async () => {
      const created = await ctx.t.http.post('/api/v1/automations').set(A()).send({ name: 'Evented', keywords: ['ev'] });
      const id = created.body.automation.id;
      await ctx.t.http.post(`/api/v1/automations/${id}/go_live`).set(A()).expect(200);
      await ctx.t.http.post(`/api/v1/automations/${id}/pause`).set(A()).expect(200);

      const all = await ctx.t.http.get('/api/v1/events').set(A());
      expect(all.status).toBe(200);
      expect(Object.keys(all.body.data[0]).sort()).toEqual(EVENT_FIELDS);
      const ids = all.body.data.map((e: { id: number }) => e.id);
      expect([...ids].sort((x: number, y: number) => y - x)).toEqual(ids);

      const mine = await ctx.t.http.get(`/api/v1/events?automation_id=${id}`).set(A());
      expect(mine.body.data.map((e: { kind: string }) => e.kind)).toEqual(['paused', 'go_live', 'automation_created']);
      expect(mine.body.data[0]).toMatchObject({ automation_id: id, run_id: null, text: 'Evented', username: null });

      const kind = await ctx.t.http.get('/api/v1/events?kind=go_live').set(A());
      expect(kind.body.data.every((e: { kind: string }) => e.kind === 'go_live')).toBe(true);

      const page1 = await ctx.t.http.get(`/api/v1/events?automation_id=${id}&limit=2`).set(A());
      expect(page1.body.data).toHaveLength(2);
      const page2 = await ctx.t.http.get(`/api/v1/events?automation_id=${id}&limit=2&cursor=${page1.body.next_cursor}`).set(A());
      expect(page2.body).toEqual({ data: [expect.objectContaining({ kind: 'automation_created' })], next_cursor: null });
      expect((await ctx.t.http.get('/api/v1/events?limit=500').set(A())).status).toBe(400);
    });
  });

  describe('OpenAPI', () => {
    it('documents every endpoint under /api/v1', async () => {
      const res = await ctx.t.http.get('/api/docs-json');
      expect(res.status).toBe(200);
      const paths = Object.keys(res.body.paths);
      for (const p of [
        '/api/v1/status',
        '/api/v1/posts',
        '/api/v1/posts/{id}/comments',
        '/api/v1/automations',
        '/api/v1/automations/{id}',
        '/api/v1/automations/{id}/attach',
        '/api/v1/automations/{id}/go_live',
        '/api/v1/automations/{id}/pause',
        '/api/v1/automations/{id}/resume',
        '/api/v1/automations/{id}/finish_migration',
        '/api/v1/automations/{id}/funnel',
        '/api/v1/automations/import',
        '/api/v1/funnel',
        '/api/v1/contacts',
        '/api/v1/contacts/{ig_id}',
        '/api/v1/events',
        '/api/v1/preview',
      ]) {
        expect(paths).toContain(p);
      }
      expect(res.body.components.schemas.AutomationInputDto.properties.follow_up_minutes).toMatchObject({ maximum: 1380 });
      expect(res.body.paths['/api/v1/automations'].post.responses['201']).toBeDefined();
    });
  });

  it('keeps using a real PostgreSQL data source', () => {
    expect(ctx.t.app.get(DataSource).options.type).toBe('postgres');
  });
});
