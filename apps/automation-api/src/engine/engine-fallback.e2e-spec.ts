import { startAutomationApp, type AutomationTestContext } from '../../test/automation-app';
import { commentWebhook, deliver, messageWebhook, settle, waitFor } from '../../test/engine-helpers';

/**
 * Text fallback when the platform refuses a button template (code 100), without double sends; and
 * skip_if_answered for comments that are themselves replies.
 */
describe('engine: template fallback and reply threads (e2e)', () => {
  let ctx: AutomationTestContext;
  const auth = () => ({ authorization: `Bearer ${ctx.keyA}` });
  const get = (path: string) => ctx.t.http.get(`/api/v1${path}`).set(auth());
  const post = (path: string, body?: unknown) => ctx.t.http.post(`/api/v1${path}`).set(auth()).send(body as object);
  const entry = () => ctx.fakeA.state.account.user_id;
  let seq = 0;
  const uid = () => `44400${Date.now() % 100000}${++seq}`;
  const sentTo = (recipient: Record<string, string>) =>
    ctx.fakeA.state.messages.filter((m) => Object.entries(recipient).every(([k, v]) => (m.recipient as Record<string, string>)[k] === v));

  beforeAll(async () => {
    ctx = await startAutomationApp({ AUTOMATION_RETRY_BASE_MS: '50', AUTOMATION_POLL_MS: '50', GRAPH_TIMEOUT_MS: '400' });
  });
  afterAll(() => ctx?.close());
  afterEach(() => {
    ctx.fakeA.state.rejectTemplates = false;
    ctx.fakeA.clearFailures();
  });

  async function live(input: Record<string, unknown>): Promise<number> {
    const res = await post('/automations', input);
    expect(res.status).toBe(201);
    await post(`/automations/${res.body.automation.id}/go_live`).expect(200);
    return res.body.automation.id;
  }

  const events = async (id: number) =>
    (await ctx.ds.query(`SELECT kind, text FROM ${ctx.schema}.events WHERE automation_id = $1 ORDER BY id`, [id])) as Array<{ kind: string; text: string | null }>;

  describe('template refused → text', () => {
    it('sends the link as text with the tracked URLs inline, once, and logs template_fallback', async () => {
      const id = await live({
        name: 'Fallback link',
        keywords: ['guide'],
        link_url: 'https://example.com/guide',
        link_text: 'Here is your guide',
        extra_links: [{ title: 'Shop', url: 'https://example.com/shop' }],
        track_clicks: true,
      });
      ctx.fakeA.state.rejectTemplates = 'private_reply';
      const media = ctx.fakeA.addMedia();
      const c = ctx.fakeA.addComment(media.id, { text: 'guide please', from: { id: uid(), username: 'lia' } });
      await deliver(ctx, commentWebhook(entry(), c)).expect(200);
      await settle(ctx);

      const sent = sentTo({ comment_id: c.id });
      expect(sent).toHaveLength(1);
      const text = (sent[0].message as { text: string }).text;
      const codes = await ctx.ds.query(`SELECT token, url FROM ${ctx.schema}.click_links WHERE automation_id = $1 ORDER BY position`, [id]);
      expect(codes.map((r: { url: string }) => r.url)).toEqual(['https://example.com/guide', 'https://example.com/shop']);
      expect(text).toBe(
        `Here is your guide\n\n${(await get(`/automations/${id}`)).body.link_button}: https://automation.example.com/r/${codes[0].token}\nShop: https://automation.example.com/r/${codes[1].token}`,
      );
      expect(ctx.fakeA.requestsTo('/messages', 'POST').filter((r) => (r.body as { recipient: { comment_id?: string } }).recipient.comment_id === c.id)).toHaveLength(2);

      const [send] = await ctx.ds.query(`SELECT s.status, s.kind, s.payload FROM ${ctx.schema}.run_sends s JOIN ${ctx.schema}.runs r ON r.id = s.run_id WHERE r.automation_id = $1`, [id]);
      expect(send).toMatchObject({ status: 'done', kind: 'private_reply', payload: { fallback: 'text', message: { text } } });
      const kinds = await events(id);
      expect(kinds.filter((e) => e.kind === 'template_fallback')).toHaveLength(1);
      expect(kinds.find((e) => e.kind === 'template_fallback')!.text).toContain('code 100');
      const [run] = await ctx.ds.query(`SELECT state FROM ${ctx.schema}.runs WHERE automation_id = $1`, [id]);
      expect(['link_sent', 'done']).toContain(run.state);
      expect((await get(`/automations/${id}/funnel`)).body).toMatchObject({ triggered: 1, dm_sent: 1, link_sent: 1, errors: 0 });
    });

    it('an opening button sent as text: the person’s text reply counts as the tap', async () => {
      const id = await live({ name: 'Fallback opening', keywords: ['recipe'], opening_text: 'Want the recipe?', opening_button: 'Send it', link_url: 'https://example.com/r', track_clicks: false });
      ctx.fakeA.state.rejectTemplates = 'private_reply';
      const media = ctx.fakeA.addMedia();
      const person = { id: uid(), username: 'moe' };
      const c = ctx.fakeA.addComment(media.id, { text: 'recipe', from: person });
      await deliver(ctx, commentWebhook(entry(), c)).expect(200);
      await settle(ctx);
      const opening = sentTo({ comment_id: c.id });
      expect(opening.map((m) => m.message)).toEqual([{ text: 'Want the recipe?\n\nReply "Send it" to continue.' }]);
      const [waiting] = await ctx.ds.query(`SELECT state, text_fallback FROM ${ctx.schema}.runs WHERE automation_id = $1`, [id]);
      expect(waiting).toEqual({ state: 'awaiting_tap', text_fallback: true });

      // DMs to the person still take templates: the link goes out as buttons.
      await deliver(ctx, messageWebhook(entry(), person.id, `m-${uid()}`, 'send it')).expect(200);
      await settle(ctx);
      const dms = sentTo({ id: person.id });
      expect(dms).toHaveLength(1);
      expect((dms[0].message as any).attachment.payload.buttons).toEqual([expect.objectContaining({ type: 'web_url', url: 'https://example.com/r' })]);
      expect((await get(`/automations/${id}/funnel`)).body).toMatchObject({ triggered: 1, button_tapped: 1, link_sent: 1 });
    });

    it('a text fallback whose answer never came is not sent twice (resolved through run_sends)', async () => {
      const id = await live({ name: 'Fallback uncertain', keywords: ['slow'], link_url: 'https://example.com/slow', track_clicks: false });
      ctx.fakeA.state.rejectTemplates = 'private_reply';
      // The template is refused; the text then goes out but its answer never arrives (timeout).
      ctx.fakeA.fail({ path: '/messages', method: 'POST', mode: 'delay', after: 1 });
      const media = ctx.fakeA.addMedia();
      const c = ctx.fakeA.addComment(media.id, { text: 'slow', from: { id: uid(), username: 'ned' } });
      await deliver(ctx, commentWebhook(entry(), c)).expect(200);
      await waitFor(async () => (await ctx.ds.query(`SELECT state FROM ${ctx.schema}.runs WHERE automation_id = $1`, [id]))[0]?.state === 'done');
      await settle(ctx);

      const sent = sentTo({ comment_id: c.id });
      expect(sent).toHaveLength(1);
      expect(sent[0].message).toEqual({ text: expect.stringContaining('https://example.com/slow') });
      const [send] = await ctx.ds.query(`SELECT s.status, s.error FROM ${ctx.schema}.run_sends s JOIN ${ctx.schema}.runs r ON r.id = s.run_id WHERE r.automation_id = $1`, [id]);
      expect(send).toEqual({ status: 'done', error: 'confirmed in the conversation' });
      expect((await events(id)).filter((e) => e.kind === 'template_fallback')).toHaveLength(1);
    });

    it('other code-100 errors are not mistaken for a refused template', async () => {
      const id = await live({ name: 'No fallback', keywords: ['broken'], link_url: 'https://example.com/x', track_clicks: false });
      ctx.fakeA.fail({ path: '/messages', method: 'POST', code: 100, status: 400, message: '(#100) Invalid parameter' });
      const media = ctx.fakeA.addMedia();
      const c = ctx.fakeA.addComment(media.id, { text: 'broken', from: { id: uid(), username: 'oli' } });
      await deliver(ctx, commentWebhook(entry(), c)).expect(200);
      await settle(ctx);
      expect(sentTo({ comment_id: c.id })).toHaveLength(0);
      const [run] = await ctx.ds.query(`SELECT state FROM ${ctx.schema}.runs WHERE automation_id = $1`, [id]);
      expect(run.state).toBe('error');
      expect((await events(id)).map((e) => e.kind)).not.toContain('template_fallback');
    });
  });

  describe('skip_if_answered for replies', () => {
    it('skips a reply the account answered in its thread (@mention, not by this service), and only that one', async () => {
      const id = await live({ name: 'Thread', keywords: ['size'], public_replies: ['@{username} sent you a DM'], link_url: 'https://example.com/size', track_clicks: false, once_per_user: false });
      const media = ctx.fakeA.addMedia();
      const parent = ctx.fakeA.addComment(media.id, { text: 'nice', from: { id: uid(), username: 'top' } });
      const ivy = { id: uid(), username: 'Ivy.Shop' };
      const jay = { id: uid(), username: 'jay' };
      const kim = { id: uid(), username: 'kim' };
      const old = new Date(Date.now() - 3_600_000).toISOString().replace(/\.\d{3}Z$/, '+0000');
      const ivyReply = ctx.fakeA.addComment(media.id, { text: 'size?', from: ivy, parent_id: parent.id });
      const kimReply = ctx.fakeA.addComment(media.id, { text: 'size?', from: kim, parent_id: parent.id });
      const jayReply = ctx.fakeA.addComment(media.id, { text: 'size?', from: jay, parent_id: parent.id });
      // Another tool answered Ivy in the thread; an older account reply to Kim predates Kim's reply.
      ctx.fakeA.addReply(parent.id, '@ivy.shop it is a 42');
      ctx.fakeA.addReply(parent.id, '@kim see the pinned post', { timestamp: old });
      for (const c of [ivyReply, kimReply, jayReply]) await deliver(ctx, commentWebhook(entry(), c)).expect(200);
      await settle(ctx);

      const states = await ctx.ds.query(`SELECT comment_id, state FROM ${ctx.schema}.runs WHERE automation_id = $1`, [id]);
      const stateOf = (commentId: string) => states.find((r: { comment_id: string }) => r.comment_id === commentId)?.state;
      expect(stateOf(ivyReply.id)).toBe('skipped_other_tool');
      expect(['link_sent', 'done']).toContain(stateOf(kimReply.id));
      expect(['link_sent', 'done']).toContain(stateOf(jayReply.id));
      expect(sentTo({ comment_id: ivyReply.id })).toHaveLength(0);
      expect(sentTo({ comment_id: jayReply.id })).toHaveLength(1);

      // The service's own "@jay …" reply in the thread does not count as another tool's answer.
      const again = ctx.fakeA.addComment(media.id, { text: 'size again?', from: jay, parent_id: parent.id });
      await deliver(ctx, commentWebhook(entry(), again)).expect(200);
      await settle(ctx);
      expect(sentTo({ comment_id: again.id })).toHaveLength(1);
      expect((await get(`/automations/${id}/funnel`)).body).toMatchObject({ triggered: 4, skipped_other_tool: 1 });
    });
  });
});
