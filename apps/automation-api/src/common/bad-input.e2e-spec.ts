import { startAutomationApp, type AutomationTestContext } from '../../test/automation-app';
import { deliver, signBody } from '../../test/engine-helpers';

/** Input that reaches no handler logic: every case is a 4xx `{error}`, never a database error (500). */
describe('bad input on every kind of parameter (e2e)', () => {
  let ctx: AutomationTestContext;
  let automationId: number;
  const A = () => ({ authorization: `Bearer ${ctx.keyA}` });
  const cursor = (raw: string) => Buffer.from(raw).toString('base64url');

  beforeAll(async () => {
    ctx = await startAutomationApp();
    automationId = (await ctx.t.http.post('/api/v1/automations').set(A()).send({ keywords: ['x'] })).body.automation.id;
  });
  afterAll(() => ctx?.close());

  async function expectError(res: { status: number; body: unknown }, status: number, mentions: string) {
    expect(res.status).toBe(status);
    expect(Object.keys(res.body as object)).toEqual(['error']);
    expect((res.body as { error: string }).error).toContain(mentions);
  }

  it.each([
    ['99999999999', 'id'],
    ['2147483648', 'id'],
    ['0', 'id'],
    ['-1', 'id'],
    ['1.5', 'id'],
    ['1e3', 'id'],
    ['abc', 'id'],
  ])('refuses the automation id %s with 400 on every /automations/{id} route', async (id, field) => {
    const http = ctx.t.http;
    for (const res of await Promise.all([
      http.get(`/api/v1/automations/${id}`).set(A()),
      http.patch(`/api/v1/automations/${id}`).set(A()).send({ name: 'x' }),
      http.delete(`/api/v1/automations/${id}`).set(A()),
      http.post(`/api/v1/automations/${id}/go_live`).set(A()),
      http.post(`/api/v1/automations/${id}/pause`).set(A()),
      http.post(`/api/v1/automations/${id}/resume`).set(A()),
      http.post(`/api/v1/automations/${id}/finish_migration`).set(A()),
      http.post(`/api/v1/automations/${id}/attach`).set(A()),
      http.get(`/api/v1/automations/${id}/funnel`).set(A()),
    ])) {
      await expectError(res, 400, field);
    }
  });

  it('answers 404 for a well-formed id that does not exist', async () => {
    await expectError(await ctx.t.http.get('/api/v1/automations/2147483647').set(A()), 404, 'not found');
  });

  it.each([
    ['/api/v1/contacts?cursor=' + cursor('9999999999'), 'cursor'],
    ['/api/v1/contacts?cursor=' + cursor('0'), 'cursor'],
    ['/api/v1/contacts?cursor=' + cursor('abc'), 'cursor'],
    ['/api/v1/contacts?cursor=%25%25', 'cursor'],
    ['/api/v1/contacts?limit=0', 'limit'],
    ['/api/v1/contacts?limit=201', 'limit'],
    ['/api/v1/contacts?unknown=1', 'unknown'],
    ['/api/v1/events?cursor=' + cursor('9999999999999999999'), 'cursor'],
    ['/api/v1/events?cursor=' + cursor('0'), 'cursor'],
    ['/api/v1/events?automation_id=99999999999', 'automation_id'],
    ['/api/v1/events?automation_id=0', 'automation_id'],
    ['/api/v1/events?limit=abc', 'limit'],
    ['/api/v1/posts?limit=51', 'limit'],
    ['/api/v1/posts/1/comments?limit=101', 'limit'],
  ])('refuses the query of GET %s with 400 naming %s', async (path, field) => {
    await expectError(await ctx.t.http.get(path).set(A()), 400, field);
  });

  it('refuses the NUL character in path, query and body with 400 naming the field', async () => {
    const http = ctx.t.http;
    await expectError(await http.get('/api/v1/contacts/a%00b').set(A()), 400, 'ig_id');
    await expectError(await http.patch('/api/v1/contacts/a%00b').set(A()).send({ notes: 'x' }), 400, 'ig_id');
    await expectError(await http.get('/api/v1/contacts?search=a%00').set(A()), 400, 'search');
    await expectError(await http.get('/api/v1/contacts?tag=%00').set(A()), 400, 'tag');
    await expectError(await http.get('/api/v1/events?kind=%00').set(A()), 400, 'kind');
    await expectError(await http.post('/api/v1/automations').set(A()).send({ name: 'a\u0000b' }), 400, 'name');
    await expectError(await http.patch(`/api/v1/automations/${automationId}`).set(A()).send({ keywords: ['ok', 'x\u0000'] }), 400, 'keywords.1');
    await expectError(await http.post('/api/v1/preview').set(A()).send({ text: 'x\u0000' }), 400, 'text');
    await expectError(
      await http.post('/api/v1/automations/import').set(A()).send({ source: 'tool', contacts: [{ ig_id: 'ok' }, { ig_id: 'a\u0000' }] }),
      400,
      'contacts.1.ig_id',
    );
    await expectError(await http.get('/webhooks/instagram?hub.mode=subscribe&hub.verify_token=%00&hub.challenge=1'), 400, 'hub.verify_token');
    // Nothing was stored by the refused import.
    expect((await http.get('/api/v1/contacts/ok').set(A())).status).toBe(404);
  });

  it('refuses out-of-range ids in bodies and reel_publish_at without a time of day', async () => {
    const http = ctx.t.http;
    await expectError(await http.post('/api/v1/preview').set(A()).send({ text: 'x', automation_id: 99999999999 }), 400, 'automation_id');
    await expectError(await http.post('/api/v1/automations').set(A()).send({ next_post: true, reel_publish_at: '2026-12-01' }), 400, 'reel_publish_at');
    await expectError(await http.post('/api/v1/automations').set(A()).send({ next_post: true, reel_publish_at: '2026-12-01T18:00:00' }), 400, 'reel_publish_at');
    const ok = await http.post('/api/v1/automations').set(A()).send({ next_post: true, reel_publish_at: '2026-12-01T18:00+01:00' });
    expect(ok.status).toBe(201);
    expect(ok.body.automation.reel_publish_at).toBe('2026-12-01T17:00:00.000Z');
  });

  it('bounds the tags of an imported contact as a PATCH does (at most 100)', async () => {
    const http = ctx.t.http;
    const tags = Array.from({ length: 101 }, (_v, i) => `t${i}`);
    await expectError(await http.post('/api/v1/automations/import').set(A()).send({ source: 'tool', contacts: [{ ig_id: 'many-tags', tags }] }), 400, 'tags');
    await expectError(await http.patch('/api/v1/contacts/anyone').set(A()).send({ tags }), 400, 'tags');
  });

  it('stores a platform delivery whose text holds NUL or an unpaired surrogate as storable text (no 500, no lost comment)', async () => {
    const entry = ctx.fakeA.state.account.user_id;
    const payload = {
      object: 'instagram',
      entry: [{ id: entry, time: 1, changes: [{ field: 'comments', value: { id: 'nul-comment-1', from: { id: 'nul-user', username: 'n\u0000ul' }, text: 'hi\u0000 there \ud83d', media: { id: 'm1' } } }] }],
    };
    expect((await deliver(ctx, payload)).status).toBe(200);
    const [row] = await ctx.ds.query(`SELECT payload FROM ${ctx.schema}.inbound_events WHERE dedup_key = 'comment:nul-comment-1'`);
    // NUL removed, the unpaired surrogate (a broken sender's half emoji) replaced by U+FFFD
    expect(row.payload).toMatchObject({ text: 'hi there \ufffd', from: { id: 'nul-user', username: 'nul' } });
    // An entry id holding NUL cannot be an account: ignored (signature checked first), not a 500.
    const odd = { object: 'instagram', entry: [{ id: '17\u00008', time: 1, changes: [] }] };
    expect((await deliver(ctx, odd)).status).toBe(200);
  });

  it('refuses an array where an item of a nested list must be an object (400, nothing stored)', async () => {
    const http = ctx.t.http;
    const automations = async () => (await http.get('/api/v1/automations').set(A())).body.length;
    const before = await automations();
    await expectError(await http.post('/api/v1/automations/import').set(A()).send({ source: 'tool', contacts: [[]] }), 400, 'contacts.0');
    await expectError(await http.post('/api/v1/automations/import').set(A()).send({ source: 'tool', contacts: [{ ig_id: 'fine' }, [{ ig_id: 'in-array' }]] }), 400, 'contacts.1');
    await expectError(await http.post('/api/v1/automations/import').set(A()).send({ source: 'tool', automations: [[]] }), 400, 'automations.0');
    await expectError(
      await http.post('/api/v1/automations/import').set(A()).send({ source: 'tool', automations: [{ keywords: ['x'], extra_links: [[]] }] }),
      400,
      'automations.0.extra_links.0',
    );
    await expectError(await http.post('/api/v1/automations').set(A()).send({ keywords: ['x'], extra_links: [[]] }), 400, 'extra_links.0');
    await expectError(await http.patch(`/api/v1/automations/${automationId}`).set(A()).send({ extra_links: [[]] }), 400, 'extra_links.0');
    const res = await http.post('/api/v1/automations/import').set(A()).send({ source: 'tool', contacts: [[]] });
    expect(res.body).toEqual({ error: 'contacts.0: each value in contacts must be an object, not an array' });
    expect(await automations()).toBe(before);
    expect((await http.get('/api/v1/contacts/fine').set(A())).status).toBe(404);
    expect((await http.get(`/api/v1/automations/${automationId}`).set(A())).body.extra_links).toEqual([]);
  });

  describe('a signed delivery the receiver cannot read', () => {
    const unreadable = () => ctx.ds.query(`SELECT account_id, payload, error, processed_at FROM ${ctx.schema}.inbound_events WHERE kind = 'unreadable' ORDER BY id`);
    const entryId = () => ctx.fakeA.state.account.user_id;

    it.each([
      ['changes: {}', () => ({ object: 'instagram', entry: [{ id: entryId(), time: 1, changes: {} }] }), 'entry.0.changes must be an array'],
      ['changes: [null]', () => ({ object: 'instagram', entry: [{ id: entryId(), time: 1, changes: [null] }] }), 'entry.0.changes.0 must be an object'],
      ['entry: [null]', () => ({ object: 'instagram', entry: [null] }), 'entry.0 must be an object'],
      ['messaging: {}', () => ({ object: 'instagram', entry: [{ id: entryId(), time: 1, messaging: {} }] }), 'entry.0.messaging must be an array'],
    ])('%s: 400 {error} naming the part, kept for inspection and not processed', async (_name, payload, reason) => {
      const body = payload();
      const before = (await unreadable()).length;
      const res = await deliver(ctx, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.stringContaining(reason) });
      const kept = await unreadable();
      expect(kept).toHaveLength(before + 1);
      expect(kept.at(-1)).toMatchObject({ payload: body, error: reason, processed_at: expect.any(Date) });
      // The platform retries a refused delivery: the same body is kept once.
      expect((await deliver(ctx, body)).status).toBe(400);
      expect(await unreadable()).toHaveLength(before + 1);
    });

    it('names the account when the delivery names a known one', async () => {
      const body = { object: 'instagram', entry: [{ id: entryId(), time: 2, changes: { field: 'comments' } }] };
      expect((await deliver(ctx, body)).status).toBe(400);
      expect((await unreadable()).at(-1)).toMatchObject({ account_id: ctx.accountId('a') });
    });

    it('refuses it unsigned with 401 and keeps nothing', async () => {
      const before = (await unreadable()).length;
      const body = JSON.stringify({ object: 'instagram', entry: [null, { id: entryId(), changes: {} }] });
      const res = await ctx.t.http.post('/webhooks/instagram').set('content-type', 'application/json').set('x-hub-signature-256', signBody(body, 'wrong-secret')).send(body);
      expect(res.status).toBe(401);
      expect(await unreadable()).toHaveLength(before);
    });
  });

  it('caps the error of a body with 5,000 unknown keys: a small {error} naming the first ones and counting the rest', async () => {
    const body = Object.fromEntries(Array.from({ length: 5000 }, (_v, i) => [`unknown_key_${i}`, i]));
    const res = await ctx.t.http.post('/api/v1/automations').set(A()).send(body);
    expect(res.status).toBe(400);
    expect(Object.keys(res.body)).toEqual(['error']);
    expect(res.body.error).toContain('property unknown_key_0 should not exist');
    expect(res.body.error).toMatch(/; 4950 more problems not listed$/);
    expect(res.text.length).toBeLessThan(5_000);
  });
});
