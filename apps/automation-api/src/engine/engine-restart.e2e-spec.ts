import { startAutomationApp, type AutomationTestContext } from '../../test/automation-app';
import { commentWebhook, deliver, messageWebhook, settle, waitFor } from '../../test/engine-helpers';

/**
 * Crash safety: the app is closed while a send is in flight (the fake Graph API performs the send
 * but holds its answer back), then started again on the same database; or the connection is cut
 * after the platform performed the send. The unconfirmed send is checked on the platform (the
 * comment's replies, the conversation) before any retry: the person gets nothing twice. A permanent
 * failure releases the once_per_user reservation.
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
    // Checked in the conversation with the person before any retry: found, so never sent again.
    expect(send).toEqual({ status: 'done', kind: 'private_reply', error: 'confirmed in the conversation' });
    expect(ctx.fakeA.requestsTo('/messages', 'POST').filter((r) => (r.body as { recipient?: { comment_id?: string } }).recipient?.comment_id === c.id)).toHaveLength(1);
    expect(ctx.fakeA.requestsTo('/conversations', 'GET').some((r) => r.query.user_id === '6660001')).toBe(true);
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

  it('a plain DM in flight at shutdown is not sent twice (found in the conversation)', async () => {
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
    expect(kinds).toEqual(expect.arrayContaining(['send_confirmed', 'link_sent']));
  });

  const runOf = async (id: number) => (await ctx.ds.query(`SELECT id, state FROM ${ctx.schema}.runs WHERE automation_id = $1 ORDER BY id`, [id]))[0];
  const sendsOf = async (id: number) =>
    ctx.ds.query(`SELECT s.status, s.kind, s.error, s.platform_id FROM ${ctx.schema}.run_sends s JOIN ${ctx.schema}.runs r ON r.id = s.run_id WHERE r.automation_id = $1 ORDER BY s.id`, [id]);

  it('an uncertain send (the connection cut after the platform performed it) is not repeated: the conversation shows it arrived', async () => {
    const id = await live({ name: 'Cut DM', trigger: 'dm', keywords: ['cutdm'], link_url: 'https://example.com/cut' });
    ctx.fakeA.addUser({ id: '6660004', username: 'ivy' });
    ctx.fakeA.fail({ path: '/messages', method: 'POST', mode: 'cut' });
    await deliver(ctx, messageWebhook(entry(), '6660004', 'mid-cut-1', 'cutdm')).expect(200);
    await waitFor(async () => (await runOf(id))?.state === 'done');
    await settle(ctx);

    const toIvy = ctx.fakeA.state.messages.filter((m) => m.recipient.id === '6660004');
    expect(toIvy).toHaveLength(1);
    expect(ctx.fakeA.requestsTo('/messages', 'POST').filter((r) => (r.body as { recipient?: { id?: string } }).recipient?.id === '6660004')).toHaveLength(1);
    expect(await sendsOf(id)).toEqual([{ status: 'done', kind: 'dm', error: 'confirmed in the conversation', platform_id: toIvy[0].id }]);
    const kinds = (await ctx.ds.query(`SELECT kind, text FROM ${ctx.schema}.events WHERE automation_id = $1 ORDER BY id`, [id])).map((e: { kind: string }) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(['send_uncertain', 'send_confirmed', 'link_sent']));
    expect(kinds.indexOf('send_uncertain')).toBeLessThan(kinds.indexOf('send_confirmed'));
  });

  it('an uncertain private reply shown in the conversation is confirmed without a second attempt', async () => {
    const id = await live({ name: 'Cut PR', keywords: ['cutpr'], link_url: 'https://example.com/cutpr' });
    const media = ctx.fakeA.addMedia();
    const c = ctx.fakeA.addComment(media.id, { text: 'cutpr', from: { id: '6660005', username: 'joe' } });
    ctx.fakeA.fail({ path: '/messages', method: 'POST', mode: 'cut' });
    await deliver(ctx, commentWebhook(entry(), c)).expect(200);
    await waitFor(async () => (await runOf(id))?.state === 'done');
    await settle(ctx);
    expect(ctx.fakeA.requestsTo('/messages', 'POST').filter((r) => (r.body as { recipient?: { comment_id?: string } }).recipient?.comment_id === c.id)).toHaveLength(1);
    expect(await sendsOf(id)).toEqual([expect.objectContaining({ status: 'done', kind: 'private_reply', error: 'confirmed in the conversation' })]);
    const [answered] = await ctx.ds.query(`SELECT count(*)::int AS n FROM ${ctx.schema}.comment_replies WHERE comment_id = $1 AND kind = 'private_reply'`, [c.id]);
    expect(answered.n).toBe(1);
  });

  it('a send whose connection died before the platform performed it is sent once after the check', async () => {
    const id = await live({ name: 'Reset DM', trigger: 'dm', keywords: ['resetdm'], link_url: 'https://example.com/reset' });
    ctx.fakeA.addUser({ id: '6660006', username: 'una' });
    ctx.fakeA.fail({ path: '/messages', method: 'POST', mode: 'reset' });
    await deliver(ctx, messageWebhook(entry(), '6660006', 'mid-reset-1', 'resetdm')).expect(200);
    await waitFor(async () => (await runOf(id))?.state === 'done');
    await settle(ctx);
    expect(ctx.fakeA.state.messages.filter((m) => m.recipient.id === '6660006')).toHaveLength(1);
    expect(await sendsOf(id)).toEqual([expect.objectContaining({ status: 'done', kind: 'dm', error: null })]);
  });

  it('a permanent failure releases the once_per_user reservation: a later comment of the person is answered', async () => {
    const id = await live({ name: 'Release', keywords: ['release'], link_url: 'https://example.com/rel', once_per_user: true });
    const media = ctx.fakeA.addMedia();
    const first = ctx.fakeA.addComment(media.id, { text: 'release', from: { id: '6660007', username: 'vic' } });
    ctx.fakeA.fail({ path: '/messages', method: 'POST', status: 400, code: 100, message: '(#100) Invalid parameter: recipient' });
    await deliver(ctx, commentWebhook(entry(), first)).expect(200);
    await waitFor(async () => (await runOf(id))?.state === 'error');
    await settle(ctx);
    expect(ctx.fakeA.state.messages.filter((m) => m.recipient.comment_id === first.id)).toHaveLength(0);

    const second = ctx.fakeA.addComment(media.id, { text: 'release again', from: { id: '6660007', username: 'vic' } });
    await deliver(ctx, commentWebhook(entry(), second)).expect(200);
    await waitFor(async () => (await ctx.ds.query(`SELECT 1 FROM ${ctx.schema}.runs WHERE automation_id = $1 AND comment_id = $2 AND state = 'done'`, [id, second.id])).length === 1);
    await settle(ctx);
    expect(ctx.fakeA.state.messages.filter((m) => m.recipient.comment_id === second.id)).toHaveLength(1);
    const states = (await ctx.ds.query(`SELECT state, error FROM ${ctx.schema}.runs WHERE automation_id = $1 ORDER BY id`, [id])).map((r: { state: string }) => r.state);
    expect(states).toEqual(['error', 'done']);
  });
});
