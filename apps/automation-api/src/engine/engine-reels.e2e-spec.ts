import { startAutomationApp, type AutomationTestContext } from '../../test/automation-app';
import { commentWebhook, deliver, settle, waitFor } from '../../test/engine-helpers';
import { CommentPollerWorker } from '../comment-poller/comment-poller.worker';
import { Clock } from '../common/clock';
import { ReelScheduler } from './reel.scheduler';

/** The comment poller's start-date watermark in this suite: an hour before it starts. */
const SINCE = new Date(Date.now() - 3_600_000);

/**
 * next_post: the scheduler attaches, suggests or expires (controllable clock), then answers the
 * waiting comments; and the comment poller, which recovers comments whose webhook never came.
 */
describe('next_post scheduler and comment poller (e2e)', () => {
  let ctx: AutomationTestContext;
  const auth = () => ({ authorization: `Bearer ${ctx.keyA}` });
  const get = (path: string) => ctx.t.http.get(`/api/v1${path}`).set(auth());
  const post = (path: string, body?: unknown) => ctx.t.http.post(`/api/v1${path}`).set(auth()).send(body as object);
  const entry = () => ctx.fakeA.state.account.user_id;
  const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, '+0000');

  beforeAll(async () => {
    // The poller runs at start and then only when a test drains it (the interval is an hour).
    ctx = await startAutomationApp({ AUTOMATION_SCHEDULER_INTERVAL_MS: '50', AUTOMATION_POLL_MS: '50', COMMENT_POLL_INTERVAL_MS: '3600000', COMMENT_POLL_START: SINCE.toISOString() });
  });
  afterAll(() => ctx?.close());
  beforeEach(() => ctx.fakeA.reset());

  async function live(input: Record<string, unknown>): Promise<number> {
    const res = await post('/automations', input);
    expect(res.status).toBe(201);
    await post(`/automations/${res.body.automation.id}/go_live`).expect(200);
    return res.body.automation.id;
  }

  it('attaches to the one reel whose caption matches and answers the comments that arrived meanwhile', async () => {
    const id = await live({ name: 'Launch', next_post: true, reel_caption: 'Summer  SALE guide', keywords: ['sale'], link_url: 'https://example.com/sale' });
    ctx.fakeA.addMedia({ media_type: 'VIDEO', media_product_type: 'REELS', caption: 'Another reel' });
    const reel = ctx.fakeA.addMedia({ media_type: 'VIDEO', media_product_type: 'REELS', caption: 'Our summer sale GUIDE is here 🌞' });
    // A comment arrives (webhook) before the scheduler attached the automation: nothing is sent yet.
    const early = ctx.fakeA.addComment(reel.id, { text: 'sale please', from: { id: '8880001', username: 'sam' } });
    await deliver(ctx, commentWebhook(entry(), early)).expect(200);

    const attached = await waitFor(async () => {
      const a = (await get(`/automations/${id}`)).body;
      return a.reel_status === 'attached' ? a : null;
    });
    expect(attached).toMatchObject({ media_ids: [reel.id], reel_suggestion: null, pending_next: false });
    expect(attached.reel_attached_at).not.toBeNull();
    const summary = (await get('/automations')).body.find((a: { id: number }) => a.id === id);
    expect(summary.posts).toEqual([reel.id]);

    await waitFor(() => ctx.fakeA.state.messages.some((m) => m.recipient.comment_id === early.id));
    await settle(ctx);
    expect(ctx.fakeA.state.messages.filter((m) => m.recipient.comment_id === early.id)).toHaveLength(1);

    // Later comments on the reel run as usual; redelivered ones are not answered twice.
    const later = ctx.fakeA.addComment(reel.id, { text: 'SALE', from: { id: '8880002', username: 'tom' } });
    await deliver(ctx, commentWebhook(entry(), later)).expect(200);
    await deliver(ctx, commentWebhook(entry(), early)).expect(200);
    await settle(ctx);
    expect(ctx.fakeA.state.messages.map((m) => m.recipient.comment_id).sort()).toEqual([early.id, later.id].sort());
    expect((await get(`/automations/${id}/funnel`)).body).toMatchObject({ triggered: 2, link_sent: 2 });
    const contact = (await get('/contacts/8880001')).body;
    expect(contact.comment_count).toBe(1);
  });

  it('several matching reels → reel_suggestion, never a guess; POST /attach confirms it', async () => {
    const publishAt = new Date(Date.now() + 10 * 60_000);
    const id = await live({ name: 'Timed', next_post: true, reel_publish_at: publishAt.toISOString(), keywords: ['timed'], link_url: 'https://example.com/t' });
    const first = ctx.fakeA.addMedia({ media_type: 'VIDEO', media_product_type: 'REELS', caption: 'one', timestamp: iso(new Date(publishAt.getTime() - 5 * 60_000)) });
    ctx.fakeA.addMedia({ media_type: 'VIDEO', media_product_type: 'REELS', caption: 'two', timestamp: iso(new Date(publishAt.getTime() + 20 * 60_000)) });
    ctx.fakeA.addMedia({ media_type: 'VIDEO', media_product_type: 'REELS', caption: 'too late', timestamp: iso(new Date(publishAt.getTime() + 40 * 60_000)) });
    const waiting = await waitFor(async () => {
      const a = (await get(`/automations/${id}`)).body;
      return a.reel_suggestion ? a : null;
    });
    expect(waiting.reel_status).toBe('waiting');
    expect(waiting.reel_suggestion).toMatchObject({ media_id: first.id, permalink: first.permalink, reason: expect.stringContaining('2 reels match') });
    expect(new Date(waiting.reel_suggestion.at).toString()).not.toBe('Invalid Date');

    const confirmed = await post(`/automations/${id}/attach`, { media_id: first.id });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ reel_status: 'attached', media_ids: [first.id] });
  });

  it('expires after 24 hours without a matching reel', async () => {
    const id = await live({ name: 'Never', next_post: true, reel_caption: 'this caption never appears', keywords: ['x'], link_url: 'https://example.com/x' });
    ctx.fakeA.addMedia({ media_type: 'VIDEO', media_product_type: 'REELS', caption: 'something else' });
    await ctx.t.app.get(ReelScheduler).tick();
    expect((await get(`/automations/${id}`)).body.reel_status).toBe('waiting');
    ctx.t.app.get(Clock).advance(24 * 3_600_000 + 60_000);
    const expired = await waitFor(async () => {
      const a = (await get(`/automations/${id}`)).body;
      return a.reel_status === 'expired' ? a : null;
    });
    expect(expired.reel_expired_at).not.toBeNull();
    const summary = (await get('/automations')).body.find((a: { id: number }) => a.id === id);
    expect(summary.posts).toBe('next post (expired)');
    const kinds = (await get(`/events?automation_id=${id}`)).body.data.map((e: { kind: string }) => e.kind);
    expect(kinds).toContain('reel_expired');
  });

  describe('comment poller', () => {
    /** One pass for every account (the lease of the previous one lifted, as the next interval would). */
    const pollOnce = async () => {
      await ctx.ds.query(`UPDATE ${ctx.schema}.comment_poll_accounts SET lease_until = NULL`);
      return ctx.t.app.get(CommentPollerWorker).drain();
    };
    const ago = (ms: number) => iso(new Date(ctx.t.app.get(Clock).now().getTime() - ms));
    const privateReplies = (commentId: string) => ctx.fakeA.state.messages.filter((m) => m.recipient.comment_id === commentId).length;
    const rows = async (ids: string[]) =>
      (await ctx.ds.query(
        `SELECT dedup_key, payload->>'source' AS source, payload->>'skipped' AS skipped, processed_at IS NOT NULL AS processed FROM ${ctx.schema}.inbound_events WHERE dedup_key = ANY($1::text[])`,
        [ids.map((id) => `comment:${id}`)],
      )) as Array<{ dedup_key: string; source: string | null; skipped: string | null; processed: boolean }>;

    it('answers a comment whose webhook never came exactly once, one seen by both paths once, and leaves old and already answered comments alone', async () => {
      const id = await live({ name: 'Guide', keywords: ['guide'], link_url: 'https://example.com/guide', public_replies: ['Sent you the guide!'] });
      const post = ctx.fakeA.addMedia({});
      const comment = (user: string, name: string, timestamp: string) => ctx.fakeA.addComment(post.id, { text: 'guide please', from: { id: user, username: name }, timestamp });
      const missed = comment('9990001', 'mia', ago(3 * 60_000));
      const both = comment('9990002', 'ben', ago(2 * 60_000));
      const late = comment('9990003', 'liv', ago(2 * 60_000));
      const old = comment('9990004', 'old', iso(new Date(SINCE.getTime() - 60 * 60_000)));
      const answered = comment('9990005', 'ola', ago(5 * 60_000));
      ctx.fakeA.addReply(answered.id, 'Check your DMs @ola');
      const fresh = comment('9990006', 'new', ago(5_000));
      const threadReply = ctx.fakeA.addComment(post.id, { text: 'guide for me too', from: { id: '9990007', username: 'rae' }, parent_id: old.id, timestamp: ago(4 * 60_000) });

      // `both`'s webhook came and was handled; the poller then sees it too.
      await deliver(ctx, commentWebhook(entry(), both)).expect(200);
      await settle(ctx);
      expect(await pollOnce()).toBeGreaterThanOrEqual(1); // A (and B once the poller has seen it)
      expect((await get('/status')).body.comment_poller).toMatchObject({ requests_last_pass: 2, recovered_last_pass: 3, answered_skipped_last_pass: 1 });
      await settle(ctx);
      // `late`'s webhook comes after the poller recovered it: dropped as a redelivery.
      await deliver(ctx, commentWebhook(entry(), late)).expect(200);
      await settle(ctx);

      expect({ missed: privateReplies(missed.id), both: privateReplies(both.id), late: privateReplies(late.id), threadReply: privateReplies(threadReply.id) }).toEqual({ missed: 1, both: 1, late: 1, threadReply: 1 });
      expect([old, answered, fresh].map((c) => privateReplies(c.id))).toEqual([0, 0, 0]);
      const stored = new Map((await rows([missed.id, both.id, late.id, old.id, answered.id, fresh.id, threadReply.id])).map((r) => [r.dedup_key.slice(8), r]));
      expect(stored.get(missed.id)).toMatchObject({ source: 'poller', skipped: null, processed: true });
      expect(stored.get(late.id)).toMatchObject({ source: 'poller' });
      expect(stored.get(both.id)).toMatchObject({ source: null });
      expect(stored.get(threadReply.id)).toMatchObject({ source: 'poller' });
      // Already answered by the account: recorded, never answered. Below the watermark or in the grace period: untouched.
      expect(stored.get(answered.id)).toMatchObject({ source: 'poller', skipped: 'answered_by_account', processed: true });
      expect(stored.has(old.id)).toBe(false);
      expect(stored.has(fresh.id)).toBe(false);
      expect((await get(`/automations/${id}/funnel`)).body).toMatchObject({ triggered: 4 });

      // The next pass reads the post again (a comment was in its grace period): that one now, nothing twice.
      ctx.t.app.get(Clock).advance(2 * 60_000);
      await pollOnce();
      await settle(ctx);
      expect([missed, both, late, threadReply, fresh].map((c) => privateReplies(c.id))).toEqual([1, 1, 1, 1, 1]);
      expect(privateReplies(old.id) + privateReplies(answered.id)).toBe(0);

      // Nothing changed since: one request (the posts) per pass.
      const quiet = ctx.fakeA.requests.length;
      await pollOnce();
      expect(ctx.fakeA.requests.slice(quiet).filter((r) => r.path.includes(post.id))).toHaveLength(0);
      const status = (await get('/status')).body.comment_poller;
      expect(status).toMatchObject({ since: SINCE.toISOString(), requests_last_pass: 1, recovered_last_pass: 0, problem: null });
      expect(status.recovered_total).toBeGreaterThanOrEqual(4);
      // An hour later the post is read again whatever its count (nothing new is answered).
      ctx.t.app.get(Clock).advance(61 * 60_000);
      const hourLater = ctx.fakeA.requests.length;
      await pollOnce();
      expect(ctx.fakeA.requests.slice(hourLater).filter((r) => r.path.includes(post.id))).toHaveLength(1);
      expect([missed, both, late, threadReply, fresh].map((c) => privateReplies(c.id))).toEqual([1, 1, 1, 1, 1]);
    });

    it('spends at most COMMENT_POLL_MAX_REQUESTS per pass and continues a long read at the next pass', async () => {
      // 750 comments no automation answers (cheap for the worker): 7 pages of 100 fit in one pass's budget of 8 requests.
      const post = ctx.fakeA.addMedia({});
      for (let i = 0; i < 750; i++) ctx.fakeA.addComment(post.id, { text: 'nice', from: { id: `77${String(i).padStart(6, '0')}`, username: `u${i}` }, timestamp: ago(10 * 60_000 + i * 1000) });
      const before = ctx.fakeA.requests.length;
      await pollOnce();
      expect(ctx.fakeA.requests.slice(before).filter((r) => r.path.includes(post.id))).toHaveLength(7); // 8 minus the post listing
      const queued = async () => (await ctx.ds.query(`SELECT count(*)::int AS n FROM ${ctx.schema}.inbound_events WHERE payload->>'source' = 'poller' AND payload->>'media_id' = $1`, [post.id]))[0].n;
      expect(await queued()).toBe(700);
      const second = ctx.fakeA.requests.length;
      await pollOnce();
      // The read goes on from its cursor: one page for the last 50, then the post is remembered.
      expect(ctx.fakeA.requests.slice(second).filter((r) => r.path.includes(post.id))).toHaveLength(1);
      expect(await queued()).toBe(750);
      const third = ctx.fakeA.requests.length;
      await pollOnce();
      expect(ctx.fakeA.requests.slice(third).filter((r) => r.path.includes(post.id))).toHaveLength(0);
    });
  });
});
