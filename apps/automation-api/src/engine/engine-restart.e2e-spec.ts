import { startAutomationApp, type AutomationTestContext } from '../../test/automation-app';
import { commentWebhook, deliver, messageWebhook, settle, waitFor } from '../../test/engine-helpers';

/**
 * Crash safety: the app is closed while a send is in flight (the fake Graph API performs the send
 * but holds its answer back), then started again on the same database. The run finishes and the
 * person gets nothing twice.
 */
describe('engine restart (e2e)', () => {
  let ctx: AutomationTestContext;
  const auth = () => ({ authorization: `Bearer ${ctx.keyA}` });
  const post = (path: string, body?: unknown) => ctx.t.http.post(`/api/v1${path}`).set(auth()).send(body as object);
  const entry = () => ctx.fakeA.state.account.user_id;

  beforeAll(async () => {
    ctx = await startAutomationApp({ AUTOMATION_LEASE_SECONDS: '1', AUTOMATION_RETRY_BASE_MS: '50', AUTOMATION_POLL_MS: '50', GRAPH_TIMEOUT_MS: '500' });
  });
  afterAll(() => ctx?.close());

  async function live(input: Record<string, unknown>): Promise<number> {
    const res = await post('/automations', input);
    await post(`/automations/${res.body.automation.id}/go_live`).expect(200);
    return res.body.automation.id;
  }

  it('a private reply in flight at shutdown is not sent again after the restart', async () => {
    const id = await live({ name: 'Crash DM', keywords: ['crash'], link_url: 'https://example.com/c' });
    const media = ctx.fakeA.addMedia();
    const c = ctx.fakeA.addComment(media.id, { text: 'crash', from: { id: '6660001', username: 'kim' } });
    ctx.fakeA.fail({ path: '/messages', method: 'POST', mode: 'delay' });

    await deliver(ctx, commentWebhook(entry(), c)).expect(200);
    await waitFor(() => ctx.fakeA.requestsTo('/messages', 'POST').length === 1);
    expect(ctx.fakeA.state.messages).toHaveLength(1); // the platform performed it; its answer never arrives
    await ctx.restart();
    await waitFor(async () => (await ctx.ds.query(`SELECT state FROM ${ctx.schema}.runs WHERE automation_id = $1`, [id]))[0]?.state === 'done');
    await settle(ctx);

    expect(ctx.fakeA.state.messages).toHaveLength(1);
    const [send] = await ctx.ds.query(`SELECT status, kind, s.error FROM ${ctx.schema}.run_sends s JOIN ${ctx.schema}.runs r ON r.id = s.run_id WHERE r.automation_id = $1`, [id]);
    expect(send).toEqual({ status: 'done', kind: 'private_reply', error: 'confirmed by the platform refusing a second private reply' });
    expect(ctx.fakeA.requestsTo('/messages', 'POST').length).toBeGreaterThanOrEqual(2); // the retry was refused by the platform, not skipped blindly
    const [run] = await ctx.ds.query(`SELECT link_sent_at IS NOT NULL AS link_sent FROM ${ctx.schema}.runs WHERE automation_id = $1`, [id]);
    expect(run.link_sent).toBe(true);
  });

  it('a public reply in flight at shutdown is found under the comment instead of being posted again', async () => {
    const id = await live({ name: 'Crash reply', keywords: ['boom'], public_replies: ['On its way!'], link_url: 'https://example.com/b' });
    const media = ctx.fakeA.addMedia();
    const c = ctx.fakeA.addComment(media.id, { text: 'boom', from: { id: '6660002', username: 'lee' } });
    ctx.fakeA.fail({ path: '/replies', method: 'POST', mode: 'delay' });

    await deliver(ctx, commentWebhook(entry(), c)).expect(200);
    await waitFor(() => ctx.fakeA.requestsTo(`/${c.id}/replies`, 'POST').length === 1);
    await ctx.restart();
    await waitFor(async () => (await ctx.ds.query(`SELECT state FROM ${ctx.schema}.runs WHERE automation_id = $1`, [id]))[0]?.state === 'done');
    await settle(ctx);

    expect(ctx.fakeA.state.comments.get(c.id)!.replies.map((r) => r.text)).toEqual(['On its way!']);
    expect(ctx.fakeA.requestsTo(`/${c.id}/replies`, 'POST')).toHaveLength(1);
    expect(ctx.fakeA.state.messages.filter((m) => m.recipient.comment_id === c.id)).toHaveLength(1);
    const [run] = await ctx.ds.query(`SELECT public_reply_id FROM ${ctx.schema}.runs WHERE automation_id = $1`, [id]);
    expect(run.public_reply_id).toBe(ctx.fakeA.state.comments.get(c.id)!.replies[0].id);
  });

  it('a plain DM in flight at shutdown is not sent twice (recorded as uncertain)', async () => {
    const id = await live({ name: 'Crash plain DM', trigger: 'dm', keywords: ['zap'], link_url: 'https://example.com/z' });
    ctx.fakeA.addUser({ id: '6660003', username: 'max' });
    ctx.fakeA.fail({ path: '/messages', method: 'POST', mode: 'delay' });
    await deliver(ctx, messageWebhook(entry(), '6660003', 'mid-zap-1', 'zap')).expect(200);
    await waitFor(() => ctx.fakeA.requestsTo('/messages', 'POST').some((r) => (r.body as { recipient?: { id?: string } }).recipient?.id === '6660003'));
    await ctx.restart();
    await waitFor(async () => (await ctx.ds.query(`SELECT state FROM ${ctx.schema}.runs WHERE automation_id = $1`, [id]))[0]?.state === 'done');
    await settle(ctx);
    expect(ctx.fakeA.state.messages.filter((m) => m.recipient.id === '6660003')).toHaveLength(1);
    const kinds = (await ctx.ds.query(`SELECT kind FROM ${ctx.schema}.events WHERE automation_id = $1`, [id])).map((e: { kind: string }) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(['send_uncertain', 'link_sent']));
  });
});
