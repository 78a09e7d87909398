import { startAutomationApp, type AutomationTestContext } from '../../test/automation-app';
import { commentWebhook, deliver, settle, waitFor } from '../../test/engine-helpers';
import { Clock } from '../common/clock';
import { ReelScheduler } from './reel.scheduler';

/** next_post: the scheduler attaches, suggests or expires (controllable clock), then answers the waiting comments. */
describe('next_post scheduler (e2e)', () => {
  let ctx: AutomationTestContext;
  const auth = () => ({ authorization: `Bearer ${ctx.keyA}` });
  const get = (path: string) => ctx.t.http.get(`/api/v1${path}`).set(auth());
  const post = (path: string, body?: unknown) => ctx.t.http.post(`/api/v1${path}`).set(auth()).send(body as object);
  const entry = () => ctx.fakeA.state.account.user_id;
  const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, '+0000');

  beforeAll(async () => {
    ctx = await startAutomationApp({ AUTOMATION_SCHEDULER_INTERVAL_MS: '50', AUTOMATION_POLL_MS: '50' });
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
});
