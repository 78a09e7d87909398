import { createHmac } from 'node:crypto';
import { AutomationEmailCaptured, AutomationLinkClicked, AutomationLinkSent, EventBus, type EventEnvelope } from '@platform/messaging';
import { startAutomationApp, type AutomationTestContext } from '../../test/automation-app';
import { commentWebhook, deliver, messageWebhook, postbackWebhook, settle, signBody, startHookSink, type HookSink } from '../../test/engine-helpers';

/** The engine end to end: signed webhooks in, the fake Graph API records what the service sent. */
describe('engine (e2e)', () => {
  let ctx: AutomationTestContext;
  let sink: HookSink;
  const bus: EventEnvelope<any>[] = [];
  const auth = () => ({ authorization: `Bearer ${ctx.keyA}` });
  const get = (path: string) => ctx.t.http.get(`/api/v1${path}`).set(auth());
  const post = (path: string, body?: unknown) => ctx.t.http.post(`/api/v1${path}`).set(auth()).send(body as object);
  const entry = () => ctx.fakeA.state.account.user_id;
  let seq = 0;
  const uid = () => `55500${Date.now() % 100000}${++seq}`;

  async function live(input: Record<string, unknown>): Promise<number> {
    const res = await post('/automations', input);
    expect(res.status).toBe(201);
    await post(`/automations/${res.body.automation.id}/go_live`).expect(200);
    return res.body.automation.id;
  }

  const sentTo = (recipient: Record<string, string>) =>
    ctx.fakeA.state.messages.filter((m) => Object.entries(recipient).every(([k, v]) => (m.recipient as Record<string, string>)[k] === v));

  beforeAll(async () => {
    ctx = await startAutomationApp({ AUTOMATION_WEBHOOK_ALLOW_PRIVATE: 'true', AUTOMATION_RETRY_BASE_MS: '50', AUTOMATION_POLL_MS: '50', EMAIL_PUBLIC_KEY: 'pk_test_123' });
    sink = await startHookSink();
    await ctx.t.app.get(EventBus).subscribe('automation-e2e', [AutomationEmailCaptured, AutomationLinkSent, AutomationLinkClicked], async (e) => {
      bus.push(e);
    });
  });
  beforeEach(() => ctx.fakeA.reset());
  afterAll(async () => {
    await ctx?.close();
    await sink?.close();
  });

  describe('webhook endpoint', () => {
    it('answers the verification handshake with the challenge, 403 on a wrong token', async () => {
      const ok = await ctx.t.http.get('/webhooks/instagram').query({ 'hub.mode': 'subscribe', 'hub.verify_token': 'verify', 'hub.challenge': '1158201444' });
      expect(ok.status).toBe(200);
      expect(ok.text).toBe('1158201444');
      expect(ok.headers['content-type']).toContain('text/plain');
      const bad = await ctx.t.http.get('/webhooks/instagram').query({ 'hub.mode': 'subscribe', 'hub.verify_token': 'nope', 'hub.challenge': '1' });
      expect(bad.status).toBe(403);
      expect(bad.body.error).toBeDefined();
    });

    it('refuses a bad or missing signature with 401 and stores nothing', async () => {
      const media = ctx.fakeA.addMedia();
      const c = ctx.fakeA.addComment(media.id, { text: 'unsigned', from: { id: uid(), username: 'mallory' } });
      const before = await ctx.ds.query(`SELECT count(*)::int AS n FROM ${ctx.schema}.inbound_events`);
      expect((await deliver(ctx, commentWebhook(entry(), c), signBody('other body'))).status).toBe(401);
      expect((await deliver(ctx, commentWebhook(entry(), c), signBody(JSON.stringify(commentWebhook(entry(), c)), 'wrong-secret'))).status).toBe(401);
      const raw = JSON.stringify(commentWebhook(entry(), c));
      expect((await ctx.t.http.post('/webhooks/instagram').set('content-type', 'application/json').send(raw)).status).toBe(401);
      const after = await ctx.ds.query(`SELECT count(*)::int AS n FROM ${ctx.schema}.inbound_events`);
      expect(after[0].n).toBe(before[0].n);
    });

    it("accepts an account's new app secret from its first delivery, though the receiver remembers accounts", async () => {
      const entryB = ctx.fakeB.state.account.user_id;
      const stored = async (commentId: string) =>
        (await ctx.ds.query(`SELECT account_id FROM ${ctx.schema}.inbound_events WHERE dedup_key = $1`, [`comment:${commentId}`])) as Array<{ account_id: number }>;
      const media = ctx.fakeB.addMedia();
      const [c1, c2, c3] = [1, 2, 3].map(() => ctx.fakeB.addComment(media.id, { text: 'hi', from: { id: uid(), username: 'erin' } }).id);
      const signedWith = (secret: string, commentId: string) => {
        const payload = commentWebhook(entryB, ctx.fakeB.state.comments.get(commentId)!);
        return deliver(ctx, payload, signBody(JSON.stringify(payload), secret));
      };
      await signedWith('app-secret', c1).expect(200); // IG_APP_SECRET; account B is read and remembered
      await ctx.ds.query(`UPDATE ${ctx.schema}.accounts SET app_secret = 'secret-b-2' WHERE id = $1`, [ctx.accountId('b')]);
      await signedWith('secret-b-2', c2).expect(200);
      expect((await signedWith('secret-b-1', c3)).status).toBe(401);
      expect(await stored(c1)).toEqual([{ account_id: ctx.accountId('b') }]);
      expect(await stored(c2)).toEqual([{ account_id: ctx.accountId('b') }]);
      expect(await stored(c3)).toEqual([]);
    });
  });

  it('runs the whole path: comment → public reply + DM → tap → gate → follow → tap → email (retry) → link → click → counters', async () => {
    const media = ctx.fakeA.addMedia();
    const alice = { id: uid(), username: 'alice' };
    const id = await live({
      name: 'Guide',
      keywords: ['guide'],
      public_replies: ['Check your DMs, {username}!'],
      follow_gate: true,
      email_gate: true,
      link_url: 'https://example.com/guide',
      extra_links: [{ title: 'Shop', url: 'https://example.com/shop' }],
      tags: ['lead'],
      webhook_url: 'https://hooks.invalid/guide',
      webhook_secret: 'whsec-1',
    });
    await ctx.ds.query(`UPDATE ${ctx.schema}.automations SET webhook_url = $1 WHERE id = $2`, [sink.url, id]);
    const comment = ctx.fakeA.addComment(media.id, { text: 'Send me the GUIDE please', from: alice });
    ctx.fakeA.state.users.get(alice.id)!.follows = false;

    const res = await deliver(ctx, commentWebhook(entry(), comment));
    expect(res.status).toBe(200);
    await settle(ctx);

    // Public reply under the comment, first DM as a private reply with the opening button.
    expect(ctx.fakeA.state.comments.get(comment.id)!.replies.map((r) => r.text)).toEqual(['Check your DMs, alice!']);
    const opening = sentTo({ comment_id: comment.id });
    expect(opening).toHaveLength(1);
    const openPayload = (opening[0].message as any).attachment.payload;
    expect(openPayload.text).toBe("Hey alice! Tap the button and I'll send you the link.");
    expect(openPayload.buttons).toEqual([{ type: 'postback', title: 'Send link', payload: expect.stringMatching(/^run:\d+:open$/) }]);
    const runId = /^run:(\d+):open$/.exec(openPayload.buttons[0].payload)![1];

    // Tap while not following → gate text with the gate button.
    await deliver(ctx, postbackWebhook(entry(), alice.id, `pb-${uid()}`, openPayload.buttons[0].payload)).expect(200);
    await settle(ctx);
    let dms = sentTo({ id: alice.id });
    expect(dms).toHaveLength(1);
    expect((dms[0].message as any).attachment.payload.buttons[0]).toEqual({ type: 'postback', title: 'I follow you now', payload: `run:${runId}:gate` });

    // Follows now, taps the gate button → email question.
    ctx.fakeA.state.users.get(alice.id)!.follows = true;
    await deliver(ctx, postbackWebhook(entry(), alice.id, `pb-${uid()}`, `run:${runId}:gate`)).expect(200);
    await settle(ctx);
    dms = sentTo({ id: alice.id });
    expect(dms).toHaveLength(2);
    expect(dms[1].message).toEqual({ text: 'Quick one: which email should I send it to? 📩' });

    // A reply without an email → the retry text once; then the email → the link.
    await deliver(ctx, messageWebhook(entry(), alice.id, `m-${uid()}`, 'what?')).expect(200);
    await settle(ctx);
    expect(sentTo({ id: alice.id })[2].message).toEqual({ text: "Hm, that didn't look like an email. Just type it in here 🙂" });
    await deliver(ctx, messageWebhook(entry(), alice.id, `m-${uid()}`, 'sure: Alice@Example.COM')).expect(200);
    await settle(ctx);
    dms = sentTo({ id: alice.id });
    expect(dms).toHaveLength(4);
    const link = (dms[3].message as any).attachment.payload;
    expect(link.text).toBe("Here's your link 👇");
    expect(link.buttons).toEqual([
      { type: 'web_url', title: 'Open', url: expect.stringMatching(/^https:\/\/automation\.example\.com\/r\/[0-9A-Za-z]{12}$/) },
      { type: 'web_url', title: 'Shop', url: expect.stringMatching(/^https:\/\/automation\.example\.com\/r\/[0-9A-Za-z]{12}$/) },
    ]);

    // Click → 302 to the target, counted once per run; unknown code → 404.
    const code = link.buttons[0].url.split('/r/')[1];
    const click = await ctx.t.http.get(`/r/${code}`);
    expect(click.status).toBe(302);
    expect(click.headers.location).toBe('https://example.com/guide');
    await ctx.t.http.get(`/r/${code}`).expect(302);
    expect((await ctx.t.http.get('/r/ZZZZZZZZZZZZ')).status).toBe(404);
    await settle(ctx);

    const funnel = (await get(`/automations/${id}/funnel`)).body;
    expect(funnel).toMatchObject({ triggered: 1, dm_sent: 1, button_tapped: 1, gated: 1, gate_passed: 1, email_asked: 1, email_captured: 1, email_expired: 0, link_sent: 1, clicked: 1, errors: 0 });
    const summary = (await get('/automations')).body.find((a: { id: number }) => a.id === id);
    expect(summary).toMatchObject({ triggered: 1, link_sent: 1, clicked: 1 });

    const contact = (await get(`/contacts/${alice.id}`)).body;
    expect(contact).toMatchObject({ email: 'alice@example.com', comment_count: 1, dm_count: 2, follows: 1, username: 'alice' });
    expect(contact.tags).toEqual(expect.arrayContaining(['lead', 'link_clicked']));
    expect(contact.source).toMatch(/^link_clicked:\d{4}-\d{2}-\d{2}$/);
    expect(contact.last_inbound_at).not.toBeNull();

    const kinds = (await get(`/events?automation_id=${id}&limit=100`)).body.data.map((e: { kind: string }) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(['triggered', 'public_reply_sent', 'dm_sent', 'button_tapped', 'gated', 'gate_passed', 'email_asked', 'email_retry', 'email_captured', 'link_sent', 'link_clicked']));

    // Customer webhooks: email_captured and link_sent, signed.
    await settle(ctx);
    const hooks = await (async () => {
      for (let i = 0; i < 200 && sink.received.length < 2; i++) await new Promise((r) => setTimeout(r, 25));
      return sink.received;
    })();
    expect(hooks.map((h) => JSON.parse(h.body).event).sort()).toEqual(['email_captured', 'link_sent']);
    for (const h of hooks) {
      expect(h.headers['x-service-signature']).toBe(`sha256=${createHmac('sha256', 'whsec-1').update(h.body).digest('hex')}`);
      expect(JSON.parse(h.body)).toMatchObject({ automation: { id, name: 'Guide' }, contact: { ig_id: alice.id, username: 'alice', email: 'alice@example.com' }, run_id: Number(runId) });
    }
    expect(JSON.parse(hooks.find((h) => JSON.parse(h.body).event === 'link_sent')!.body).link).toBe('https://example.com/guide');

    // Bus events through the outbox, with the account's email project key.
    const types = bus.filter((e) => e.data.runId === runId).map((e) => e.type).sort();
    expect(types).toEqual(['automation.email_captured', 'automation.link_clicked', 'automation.link_clicked', 'automation.link_sent']);
    expect(bus.find((e) => e.type === 'automation.email_captured')!.data).toMatchObject({ emailPublicKey: 'pk_test_123', email: 'alice@example.com', igUserId: alice.id, tags: ['lead'] });
    expect(bus.filter((e) => e.type === 'automation.link_clicked').map((e) => e.data.firstClick)).toEqual([true, false]);

    // Redelivered webhooks change nothing.
    const before = ctx.fakeA.state.messages.length;
    await deliver(ctx, commentWebhook(entry(), comment)).expect(200);
    await settle(ctx);
    expect(ctx.fakeA.state.messages.length).toBe(before);
    expect(ctx.fakeA.state.comments.get(comment.id)!.replies).toHaveLength(1);
  });

  it('200 identical deliveries sent concurrently give one run and one DM', async () => {
    const media = ctx.fakeA.addMedia();
    const id = await live({ name: 'Burst', keywords: ['burst'], link_url: 'https://example.com/burst', public_replies: ['ok'] });
    const c = ctx.fakeA.addComment(media.id, { text: 'burst', from: { id: uid(), username: 'bob' } });
    const statuses = await Promise.all(Array.from({ length: 200 }, () => deliver(ctx, commentWebhook(entry(), c)).then((r) => r.status)));
    expect(new Set(statuses)).toEqual(new Set([200]));
    await settle(ctx);
    const runs = await ctx.ds.query(`SELECT state FROM ${ctx.schema}.runs WHERE automation_id = $1`, [id]);
    expect(runs).toEqual([{ state: 'done' }]);
    expect(sentTo({ comment_id: c.id })).toHaveLength(1);
    expect(ctx.fakeA.state.comments.get(c.id)!.replies).toHaveLength(1);
  });

  it('ignores the account\'s own comments, echoes, drafts and paused automations; honours once_per_user and exclude_keywords', async () => {
    const media = ctx.fakeA.addMedia();
    const id = await live({ name: 'Filters', keywords: ['filterword'], exclude_keywords: ['spam'], link_url: 'https://example.com/f' });
    await post('/automations', { name: 'Draft', keywords: ['draftword'], link_url: 'https://example.com/d' });
    const own = ctx.fakeA.addComment(media.id, { text: 'filterword', from: { id: entry(), username: 'brand_a' } });
    const carol = { id: uid(), username: 'carol' };
    const excluded = ctx.fakeA.addComment(media.id, { text: 'filterword spam', from: carol });
    const draft = ctx.fakeA.addComment(media.id, { text: 'draftword', from: carol });
    await deliver(ctx, commentWebhook(entry(), own)).expect(200);
    await deliver(ctx, commentWebhook(entry(), excluded)).expect(200);
    await deliver(ctx, commentWebhook(entry(), draft)).expect(200);
    // An echo (a message the account sent) never triggers; written by hand it pauses its recipient's conversation (human takeover), so not carol's.
    await deliver(ctx, messageWebhook(entry(), uid(), `m-${uid()}`, 'filterword', { echo: true })).expect(200);
    await settle(ctx);
    expect(ctx.fakeA.state.messages).toHaveLength(0);

    const first = ctx.fakeA.addComment(media.id, { text: 'filterword', from: carol });
    const second = ctx.fakeA.addComment(media.id, { text: 'filterword again', from: carol });
    await deliver(ctx, commentWebhook(entry(), first)).expect(200);
    await deliver(ctx, commentWebhook(entry(), second)).expect(200);
    await settle(ctx);
    expect(ctx.fakeA.state.messages.map((m) => m.recipient.comment_id)).toEqual([first.id]);
    expect((await get(`/automations/${id}/funnel`)).body).toMatchObject({ triggered: 1, skipped: 1 });

    await post(`/automations/${id}/pause`).expect(200);
    const dave = { id: uid(), username: 'dave' };
    await deliver(ctx, commentWebhook(entry(), ctx.fakeA.addComment(media.id, { text: 'filterword', from: dave }))).expect(200);
    await settle(ctx);
    expect(ctx.fakeA.state.messages).toHaveLength(1);
    const contact = (await get(`/contacts/${carol.id}`)).body;
    expect(contact.comment_count).toBe(4);
  });

  it('answers a reply comment under its parent, and skips comments another tool already answered (skipped_other_tool)', async () => {
    const media = ctx.fakeA.addMedia();
    const id = await live({ name: 'Replies', keywords: ['price'], public_replies: ['Sent!'], link_url: 'https://example.com/p' });
    const erin = { id: uid(), username: 'erin' };
    const parent = ctx.fakeA.addComment(media.id, { text: 'hello', from: { id: uid(), username: 'x' } });
    const child = ctx.fakeA.addComment(media.id, { text: 'price?', from: erin, parent_id: parent.id });
    await deliver(ctx, commentWebhook(entry(), child)).expect(200);
    await settle(ctx);
    expect(ctx.fakeA.state.comments.get(parent.id)!.replies.filter((r) => r.from.id === entry()).map((r) => r.text)).toEqual(['Sent!']);
    expect(sentTo({ comment_id: child.id })).toHaveLength(1);

    const frank = { id: uid(), username: 'frank' };
    const answered = ctx.fakeA.addComment(media.id, { text: 'price please', from: frank });
    ctx.fakeA.addReply(answered.id, 'answered by another tool');
    await deliver(ctx, commentWebhook(entry(), answered)).expect(200);
    await settle(ctx);
    expect(sentTo({ comment_id: answered.id })).toHaveLength(0);
    expect(ctx.fakeA.state.comments.get(answered.id)!.replies).toHaveLength(1);
    const funnel = (await get(`/automations/${id}/funnel`)).body;
    expect(funnel).toMatchObject({ triggered: 2, skipped_other_tool: 1, dm_sent: 1 });
  });

  it('DM and story-reply triggers; transition mode sends the link without button, gate or email', async () => {
    const dm = await live({ name: 'DM', trigger: 'dm', keywords: ['menu'], opening_button: 'Show me', link_url: 'https://example.com/menu' });
    const story = await live({ name: 'Story', trigger: 'story_reply', keywords: ['🔥'], link_url: 'https://example.com/story', track_clicks: false });
    const gina = ctx.fakeA.addUser({ id: uid(), username: 'gina' });
    await deliver(ctx, messageWebhook(entry(), gina.id, `m-${uid()}`, 'Menu?')).expect(200);
    await settle(ctx);
    let dms = sentTo({ id: gina.id });
    expect(dms).toHaveLength(1);
    const payload = (dms[0].message as any).attachment.payload;
    expect(payload.buttons[0]).toMatchObject({ type: 'postback', title: 'Show me' });
    await deliver(ctx, postbackWebhook(entry(), gina.id, `pb-${uid()}`, payload.buttons[0].payload)).expect(200);
    await settle(ctx);
    dms = sentTo({ id: gina.id });
    expect((dms[1].message as any).attachment.payload.buttons[0]).toMatchObject({ type: 'web_url', title: 'Open' });

    const hank = ctx.fakeA.addUser({ id: uid(), username: 'hank' });
    await deliver(ctx, messageWebhook(entry(), hank.id, `m-${uid()}`, '🔥🔥', { story: 'story-1' })).expect(200);
    await settle(ctx);
    dms = sentTo({ id: hank.id });
    expect(dms).toHaveLength(1);
    expect((dms[0].message as any).attachment.payload.buttons).toEqual([{ type: 'web_url', title: 'Open', url: 'https://example.com/story' }]);
    expect((await get(`/automations/${dm}/funnel`)).body).toMatchObject({ triggered: 1, button_tapped: 1, link_sent: 1 });
    expect((await get(`/automations/${story}/funnel`)).body).toMatchObject({ triggered: 1, link_sent: 1 });

    // Transition mode (imported automation): no follower check, button or email.
    const imported = await post('/automations/import', {
      source: 'manychat',
      automations: [{ name: 'Imported', keywords: ['migrated'], follow_gate: true, email_gate: true, link_url: 'https://example.com/m' }],
    });
    expect(imported.status).toBe(201);
    const importedId = imported.body.automations[0].id;
    await post(`/automations/${importedId}/go_live`).expect(200);
    const media = ctx.fakeA.addMedia();
    const ivan = { id: uid(), username: 'ivan' };
    const c = ctx.fakeA.addComment(media.id, { text: 'migrated', from: ivan });
    await deliver(ctx, commentWebhook(entry(), c)).expect(200);
    await settle(ctx);
    const sent = sentTo({ comment_id: c.id });
    expect(sent).toHaveLength(1);
    expect((sent[0].message as any).attachment.payload.buttons[0]).toMatchObject({ type: 'web_url', title: 'Open' });
    expect((await get(`/automations/${importedId}/funnel`)).body).toMatchObject({ triggered: 1, link_sent: 1, button_tapped: 0, gated: 0, email_asked: 0 });
  });
});
