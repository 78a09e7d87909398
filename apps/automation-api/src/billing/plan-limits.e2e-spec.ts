import { startAutomationApp, type AutomationTestContext } from '../../test/automation-app';
import { commentWebhook, deliver, settle } from '../../test/engine-helpers';

/** The plan's limits (BILLING_*) are enforced per account: automations held, messages of the month. */
describe('plan limits (e2e)', () => {
  let ctx: AutomationTestContext;
  const auth = (key = ctx.keyA) => ({ authorization: `Bearer ${key}` });
  const create = (name: string, key = ctx.keyA) =>
    ctx.t.http.post('/api/v1/automations').set(auth(key)).send({ name, keywords: [name.toLowerCase()], link_url: 'https://example.com/x', public_replies: ['Sent you a DM'], track_clicks: false, once_per_user: false });

  beforeAll(async () => {
    ctx = await startAutomationApp({ BILLING_AUTOMATIONS: '2', BILLING_MESSAGES_PER_MONTH: '2', BILLING_PLAN: 'starter', AUTOMATION_POLL_MS: '50' });
  });
  afterAll(async () => {
    await ctx?.close();
  });
  beforeEach(() => ctx.fakeA.reset());

  it('refuses an automation beyond BILLING_AUTOMATIONS with 403 PLAN_LIMIT, per account, also under concurrency and in imports', async () => {
    expect((await create('One')).status).toBe(201);
    expect((await create('Two')).status).toBe(201);
    const third = await create('Three');
    expect(third.status).toBe(403);
    expect(third.body.error).toBe('Plan limit reached: the starter plan allows 2 automations and this account holds 2');

    // Another account has its own count; ten creations at once leave exactly the limit.
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => create(`B${i}`, ctx.keyB)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(2);
    expect(results.filter((r) => r.status === 403)).toHaveLength(8);
    expect((await ctx.t.http.get('/api/v1/automations').set(auth(ctx.keyB))).body).toHaveLength(2);

    // An import is all or nothing: refused, its contacts are not stored either.
    const imported = await ctx.t.http.post('/api/v1/automations/import').set(auth()).send({ source: 'other-tool', automations: [{ name: 'Imported', keywords: ['imp'] }], contacts: [{ ig_id: '990001', username: 'imp' }] });
    expect(imported.status).toBe(403);
    expect((await ctx.t.http.get('/api/v1/contacts').set(auth())).body.data ?? []).toHaveLength(0);

    // Room again after a delete.
    const [first] = (await ctx.t.http.get('/api/v1/automations').set(auth())).body;
    await ctx.t.http.delete(`/api/v1/automations/${first.id}`).set(auth()).expect(204);
    expect((await create('Again')).status).toBe(201);
  });

  it('starts no run once the month used BILLING_MESSAGES_PER_MONTH: a skipped run (plan_limit) and an Event, nothing sent', async () => {
    const list = (await ctx.t.http.get('/api/v1/automations').set(auth())).body as Array<{ id: number; keywords: string[] }>;
    const again = list.find((a) => a.keywords.includes('again'))!;
    await ctx.t.http.post(`/api/v1/automations/${again.id}/go_live`).set(auth()).expect(200);
    const media = ctx.fakeA.addMedia();
    const entry = ctx.fakeA.state.account.user_id;

    const first = ctx.fakeA.addComment(media.id, { text: 'again', from: { id: '5550001', username: 'ana' } });
    await deliver(ctx, commentWebhook(entry, first)).expect(200);
    await settle(ctx);
    // A public reply and the private reply: the month's 2 messages.
    expect(ctx.fakeA.state.messages).toHaveLength(1);
    expect(ctx.fakeA.state.comments.get(first.id)!.replies).toHaveLength(1);

    const second = ctx.fakeA.addComment(media.id, { text: 'again', from: { id: '5550002', username: 'ben' } });
    await deliver(ctx, commentWebhook(entry, second)).expect(200);
    await settle(ctx);
    expect(ctx.fakeA.state.messages).toHaveLength(1);
    expect(ctx.fakeA.state.comments.get(second.id)!.replies).toHaveLength(0);
    const skipped = (await ctx.t.http.get(`/api/v1/events?automation_id=${again.id}&kind=skipped`).set(auth())).body.data;
    expect(skipped).toHaveLength(1);
    expect(skipped[0].text).toMatch(/^plan_limit: monthly messages 2\/2 \(starter plan\) reached/);
    const [run] = await ctx.ds.query(`SELECT state, error FROM ${ctx.schema}.runs WHERE comment_id = $1`, [second.id]);
    expect(run).toEqual({ state: 'skipped', error: 'plan_limit' });
  });
});
