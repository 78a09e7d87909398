import { startAutomationApp, type AutomationTestContext } from '../../test/automation-app';
import { commentWebhook, deliver, messageWebhook, postbackWebhook, seenWebhook, settle, startHookSink, waitFor, type HookSink } from '../../test/engine-helpers';
import { ClicksService } from '../clicks/clicks.service';
import { Clock } from '../common/clock';
import { InboundWorker } from './inbound.worker';

/** Reminders (controllable clock), customer webhook retries, platform errors, the private-reply budget. */
describe('engine operations (e2e)', () => {
  let ctx: AutomationTestContext;
  let sink: HookSink;
  const auth = () => ({ authorization: `Bearer ${ctx.keyA}` });
  const get = (path: string) => ctx.t.http.get(`/api/v1${path}`).set(auth());
  const post = (path: string, body?: unknown) => ctx.t.http.post(`/api/v1${path}`).set(auth()).send(body as object);
  const entry = () => ctx.fakeA.state.account.user_id;
  const clock = () => ctx.t.app.get(Clock);
  const drain = async () => {
    await ctx.t.app.get(InboundWorker).drain();
    await settle(ctx);
  };

  beforeAll(async () => {
    ctx = await startAutomationApp({ AUTOMATION_WEBHOOK_ALLOW_PRIVATE: 'true', AUTOMATION_RETRY_BASE_MS: '50', AUTOMATION_POLL_MS: '50', AUTOMATION_MAX_ATTEMPTS: '3', PRIVATE_REPLIES_PER_HOUR: '2' });
    sink = await startHookSink();
  });
  afterAll(async () => {
    await ctx?.close();
    await sink?.close();
  });
  beforeEach(() => ctx.fakeA.reset());

  async function live(input: Record<string, unknown>): Promise<number> {
    const res = await post('/automations', input);
    expect(res.status).toBe(201);
    await post(`/automations/${res.body.automation.id}/go_live`).expect(200);
    return res.body.automation.id;
  }

  it('sends the reminder once after follow_up_minutes without a click, and never outside the 24-hour window', async () => {
    const id = await live({ name: 'Remind', trigger: 'dm', keywords: ['remind'], opening_button: 'Go', link_url: 'https://example.com/r', follow_up_minutes: 30, follow_up_text: 'Still want it, {username}?' });
    const mona = ctx.fakeA.addUser({ id: '7770001', username: 'mona' });
    const nils = ctx.fakeA.addUser({ id: '7770002', username: 'nils' });
    const tapThrough = async (userId: string) => {
      await deliver(ctx, messageWebhook(entry(), userId, `m-${userId}-${Date.now()}`, 'remind me')).expect(200);
      await settle(ctx);
      const opening = ctx.fakeA.state.messages.filter((m) => m.recipient.id === userId).at(-1)!;
      await deliver(ctx, postbackWebhook(entry(), userId, `pb-${userId}-${Date.now()}`, (opening.message as any).attachment.payload.buttons[0].payload)).expect(200);
      await settle(ctx);
    };
    await tapThrough(mona.id);
    const toMona = () => ctx.fakeA.state.messages.filter((m) => m.recipient.id === mona.id);
    expect(toMona()).toHaveLength(2);

    clock().advance(29 * 60_000);
    await drain();
    expect(toMona()).toHaveLength(2); // not due yet
    clock().advance(2 * 60_000);
    await drain();
    expect(toMona()).toHaveLength(3);
    expect((toMona()[2].message as any).attachment.payload).toMatchObject({ text: 'Still want it, mona?', buttons: [{ type: 'web_url', title: 'Open' }] });
    clock().advance(60 * 60_000);
    await drain();
    expect(toMona()).toHaveLength(3); // once

    // nils: the reminder comes due 25 hours after his last message → outside the window, not sent.
    await tapThrough(nils.id);
    await ctx.ds.query(`UPDATE ${ctx.schema}.inbound_events SET next_attempt_at = next_attempt_at + interval '25 hours' WHERE dedup_key LIKE 'follow_up:%' AND processed_at IS NULL`);
    clock().advance(26 * 3_600_000);
    await drain();
    expect(ctx.fakeA.state.messages.filter((m) => m.recipient.id === nils.id)).toHaveLength(2);
    const funnel = (await get(`/automations/${id}/funnel`)).body;
    expect(funnel).toMatchObject({ triggered: 2, link_sent: 2, followed_up: 1 });
    const kinds = (await get(`/events?automation_id=${id}&kind=follow_up_outside_window`)).body.data;
    expect(kinds).toHaveLength(1);
  });

  it('no reminder after a click', async () => {
    const id = await live({ name: 'Clicked', trigger: 'dm', keywords: ['clicky'], link_url: 'https://example.com/k', follow_up_minutes: 10, follow_up_text: 'Hey?' });
    ctx.fakeA.addUser({ id: '7770003', username: 'olga' });
    await deliver(ctx, messageWebhook(entry(), '7770003', `m-olga-${Date.now()}`, 'clicky')).expect(200);
    await settle(ctx);
    const url = (ctx.fakeA.state.messages[0].message as any).attachment.payload.buttons[0].url as string;
    await ctx.t.http.get(new URL(url).pathname).expect(302);
    await settle(ctx);
    clock().advance(11 * 60_000);
    await drain();
    expect(ctx.fakeA.state.messages).toHaveLength(1);
    expect((await get(`/automations/${id}/funnel`)).body).toMatchObject({ clicked: 1, followed_up: 0 });

    // A click stored but not counted (the process stopped right after the redirect) is counted by the sweep, once.
    const [link] = await ctx.ds.query(`SELECT id FROM ${ctx.schema}.click_links WHERE automation_id = $1`, [id]);
    await ctx.ds.query(`INSERT INTO ${ctx.schema}.clicks (link_id, account_id, clicked_at) VALUES ($1, $2, now() - interval '1 minute')`, [link.id, ctx.accountId('a')]);
    await Promise.all([ctx.t.app.get(ClicksService).sweep(), ctx.t.app.get(ClicksService).sweep()]);
    const [run] = await ctx.ds.query(`SELECT click_count FROM ${ctx.schema}.runs WHERE automation_id = $1`, [id]);
    expect(run.click_count).toBe(2);
  });

  it('retries a failing customer webhook with backoff and logs every attempt', async () => {
    const id = await live({ name: 'Hooked', trigger: 'dm', keywords: ['hook'], link_url: 'https://example.com/h', webhook_url: 'https://hooks.invalid/x' });
    await ctx.ds.query(`UPDATE ${ctx.schema}.automations SET webhook_url = $1 WHERE id = $2`, [sink.url, id]);
    sink.statuses.push(500, 503);
    ctx.fakeA.addUser({ id: '7770004', username: 'pia' });
    await deliver(ctx, messageWebhook(entry(), '7770004', `m-pia-${Date.now()}`, 'hook')).expect(200);
    await settle(ctx);
    const [row] = await waitFor(async () => {
      const rows = await ctx.ds.query(`SELECT status, attempts, last_status FROM ${ctx.schema}.webhook_deliveries WHERE automation_id = $1`, [id]);
      return rows[0]?.status === 'delivered' ? rows : null;
    });
    expect(row).toEqual({ status: 'delivered', attempts: 3, last_status: 200 });
    expect(sink.received).toHaveLength(3);
    expect(sink.received[0].body).toBe(sink.received[2].body);
    expect(sink.received[0].headers['x-service-signature']).toBeUndefined();
    const kinds = (await get(`/events?automation_id=${id}`)).body.data.map((e: { kind: string }) => e.kind);
    expect(kinds.filter((k: string) => k === 'webhook_retry')).toHaveLength(2);
    expect(kinds).toContain('webhook_delivered');
  });

  it('a platform error on one run does not stop the others and shows in /status problem and the run\'s Event', async () => {
    const id = await live({ name: 'Errors', keywords: ['oops'], link_url: 'https://example.com/o' });
    const media = ctx.fakeA.addMedia();
    const bad = ctx.fakeA.addComment(media.id, { text: 'oops', from: { id: '7770005', username: 'quinn' } });
    const good = ctx.fakeA.addComment(media.id, { text: 'oops too', from: { id: '7770006', username: 'rita' } });
    ctx.fakeA.fail({ path: '/messages', method: 'POST', code: 100, status: 400, message: 'Invalid parameter', times: 1 });
    await deliver(ctx, commentWebhook(entry(), bad)).expect(200);
    await settle(ctx);
    await deliver(ctx, commentWebhook(entry(), good)).expect(200);
    await settle(ctx);
    const runs = await ctx.ds.query(`SELECT contact_ig_id, state FROM ${ctx.schema}.runs WHERE automation_id = $1 ORDER BY id`, [id]);
    expect(runs).toEqual([
      { contact_ig_id: '7770005', state: 'error' },
      { contact_ig_id: '7770006', state: 'done' },
    ]);
    const errors = (await get(`/events?automation_id=${id}&kind=error`)).body.data;
    expect(errors).toHaveLength(1);
    expect(errors[0].text).toContain('Invalid parameter');
    const status = (await get('/status')).body;
    expect(status.problem).toContain('Invalid parameter');
    expect((await get(`/automations/${id}/funnel`)).body).toMatchObject({ errors: 1, link_sent: 1 });
  });

  it('a comment past the 7-day private-reply window ends skipped (counted as triggered), nothing retried', async () => {
    const id = await live({ name: 'Old', keywords: ['oldie'], link_url: 'https://example.com/old' });
    const media = ctx.fakeA.addMedia();
    const c = ctx.fakeA.addComment(media.id, { text: 'oldie', from: { id: '7770009', username: 'vera' } });
    ctx.fakeA.fail({ path: '/messages', method: 'POST', code: 10, subcode: 2534022, status: 400, message: 'This message is sent outside of allowed window.' });
    await deliver(ctx, commentWebhook(entry(), c)).expect(200);
    await settle(ctx);
    const [run] = await ctx.ds.query(`SELECT state, error FROM ${ctx.schema}.runs WHERE automation_id = $1`, [id]);
    expect(run).toEqual({ state: 'skipped', error: 'private reply window closed (comment older than 7 days)' });
    expect((await get(`/automations/${id}/funnel`)).body).toMatchObject({ triggered: 1, skipped: 1, dm_sent: 0, errors: 0 });
    expect(ctx.fakeA.requestsTo('/messages', 'POST')).toHaveLength(1);
  });

  it('defers private replies beyond the hourly budget instead of dropping them', async () => {
    // Keep the whole test inside one budget window: move the clock (forward) to the middle of an hour.
    const now = clock().now().getTime();
    let midHour = Math.floor(now / 3_600_000) * 3_600_000 + 30 * 60_000;
    if (midHour < now) midHour += 3_600_000;
    clock().set(new Date(midHour));
    const id = await live({ name: 'Budget', keywords: ['budget'], link_url: 'https://example.com/b' });
    const media = ctx.fakeA.addMedia();
    // The budget (2 per hour in this app) is partly used by the previous test; use it up.
    for (let i = 0; i < 3; i++) {
      const c = ctx.fakeA.addComment(media.id, { text: 'budget', from: { id: `77710${i}`, username: `u${i}` } });
      await deliver(ctx, commentWebhook(entry(), c)).expect(200);
    }
    // Until one is deferred and the others are done (not merely one deferred while another is still in hand).
    await waitFor(async () => {
      const [r] = await ctx.ds.query(
        `SELECT count(*) FILTER (WHERE next_attempt_at > now() AND error LIKE '%deferred%')::int AS deferred, count(*)::int AS pending
           FROM ${ctx.schema}.inbound_events WHERE dedup_key LIKE 'comment:%' AND processed_at IS NULL`,
      );
      return r.deferred >= 1 && r.deferred === r.pending;
    });
    const runs = await ctx.ds.query(`SELECT state FROM ${ctx.schema}.runs WHERE automation_id = $1 ORDER BY id`, [id]);
    expect(runs.filter((r: { state: string }) => r.state === 'started').length).toBeGreaterThanOrEqual(1);
    expect(runs.filter((r: { state: string }) => r.state === 'error')).toHaveLength(0);
    const [pending] = await ctx.ds.query(`SELECT attempts, error FROM ${ctx.schema}.inbound_events WHERE processed_at IS NULL AND dedup_key LIKE 'comment:%' LIMIT 1`);
    expect(pending.attempts).toBe(0);
    expect(pending.error).toContain('deferred');
    // The queue's depth shows in GET /status (and in the MCP tool get_status, the same body).
    const status = (await get('/status')).body;
    expect(status.queue).toEqual({ due: 0, scheduled: expect.any(Number), deferred: runs.filter((r: { state: string }) => r.state === 'started').length, oldest_due_at: null, next_private_reply_at: null });
    expect(status.queue.scheduled).toBeGreaterThanOrEqual(status.queue.deferred);
    expect(status.rate_limit.private_replies_last_hour).toBe(2);
  });

  it('STOP ends every automation for the person (run ended, taps and new triggers ignored, Events); START undoes it', async () => {
    const id = await live({ name: 'Stop', trigger: 'dm', keywords: ['stopguide'], opening_button: 'Send it', link_url: 'https://example.com/s', track_clicks: false, once_per_user: false });
    const olga = ctx.fakeA.addUser({ id: '7779001', username: 'olga' });
    const toOlga = () => ctx.fakeA.state.messages.filter((m) => m.recipient.id === olga.id);
    await deliver(ctx, messageWebhook(entry(), olga.id, 'stop-m1', 'stopguide')).expect(200);
    await settle(ctx);
    expect(toOlga()).toHaveLength(1);
    const button = (toOlga()[0].message as any).attachment.payload.buttons[0].payload;

    await deliver(ctx, messageWebhook(entry(), olga.id, 'stop-m2', 'STOP')).expect(200);
    await settle(ctx);
    const [run] = await ctx.ds.query(`SELECT state, error FROM ${ctx.schema}.runs WHERE message_id = 'stop-m1'`);
    expect(run).toEqual({ state: 'skipped', error: 'stopped_by_person' });
    // The tap on the earlier button and a new trigger: nothing sent.
    await deliver(ctx, postbackWebhook(entry(), olga.id, 'stop-pb', button)).expect(200);
    await deliver(ctx, messageWebhook(entry(), olga.id, 'stop-m3', 'stopguide')).expect(200);
    await settle(ctx);
    expect(toOlga()).toHaveLength(1);
    const kinds = (await get(`/events?limit=50`)).body.data.filter((e: { username: string | null }) => e.username === 'olga').map((e: { kind: string; text: string }) => `${e.kind}: ${e.text}`);
    expect(kinds).toEqual(expect.arrayContaining(['opted_out: STOP: no automation answers this person any more (until START)', 'skipped: stopped_by_person: the person sent STOP; the run ends here', 'skipped: opted_out: this person sent STOP']));
    const [c] = await ctx.ds.query(`SELECT opted_out_at FROM ${ctx.schema}.contacts WHERE ig_id = $1`, [olga.id]);
    expect(c.opted_out_at).not.toBeNull();

    await deliver(ctx, messageWebhook(entry(), olga.id, 'stop-m4', 'start')).expect(200);
    await deliver(ctx, messageWebhook(entry(), olga.id, 'stop-m5', 'stopguide')).expect(200);
    await settle(ctx);
    expect(toOlga()).toHaveLength(2);
    // Funnel: the ended run counts as triggered and skipped; the refused trigger as skipped only.
    const funnel = (await get(`/automations/${id}/funnel`)).body;
    expect(funnel).toMatchObject({ triggered: 2, skipped: 2 });
  });

  it('read but not tapped: the link follows after the configured wait (5 min), only when the button was not tapped', async () => {
    const id = await live({ name: 'Seen', trigger: 'dm', keywords: ['seenguide'], opening_button: 'Send it', link_url: 'https://example.com/seen', track_clicks: false, once_per_user: false });
    const pia = ctx.fakeA.addUser({ id: '7779101', username: 'pia' });
    const rob = ctx.fakeA.addUser({ id: '7779102', username: 'rob' });
    const to = (u: string) => ctx.fakeA.state.messages.filter((m) => m.recipient.id === u);
    for (const u of [pia, rob]) await deliver(ctx, messageWebhook(entry(), u.id, `seen-m-${u.id}`, 'seenguide')).expect(200);
    await settle(ctx);
    expect(to(pia.id)).toHaveLength(1);

    // Both read the opening DM; rob then taps the button within the wait.
    for (const u of [pia, rob]) await deliver(ctx, seenWebhook(entry(), u.id, clock().now().getTime())).expect(200);
    await drain();
    const robButton = (to(rob.id)[0].message as any).attachment.payload.buttons[0].payload;
    await deliver(ctx, postbackWebhook(entry(), rob.id, 'seen-pb-rob', robButton)).expect(200);
    await drain();
    expect(to(rob.id)).toHaveLength(2);

    clock().advance(4 * 60_000);
    await drain();
    expect(to(pia.id)).toHaveLength(1); // not yet
    clock().advance(2 * 60_000);
    await drain();
    expect(to(pia.id)).toHaveLength(2);
    expect((to(pia.id)[1].message as any).attachment.payload.buttons).toEqual([{ type: 'web_url', url: 'https://example.com/seen', title: 'Open' }]);
    expect(to(rob.id)).toHaveLength(2); // tapped: no fallback
    // A second read changes nothing.
    await deliver(ctx, seenWebhook(entry(), pia.id, clock().now().getTime() + 1)).expect(200);
    clock().advance(10 * 60_000);
    await drain();
    expect(to(pia.id)).toHaveLength(2);

    const funnel = (await get(`/automations/${id}/funnel`)).body;
    expect(funnel).toMatchObject({ triggered: 2, dm_sent: 2, button_tapped: 1, link_sent: 2, read_fallback: 1 });
    const events = (await get(`/events?automation_id=${id}&limit=50`)).body.data.map((e: { kind: string; username: string }) => `${e.username}:${e.kind}`);
    expect(events).toEqual(expect.arrayContaining(['pia:dm_read', 'pia:read_fallback', 'pia:link_sent', 'rob:dm_read', 'rob:button_tapped']));
    expect(events).not.toContain('rob:read_fallback');
  });

  it('human takeover: a reply written by hand pauses automation for that conversation for the configured time; the service\'s own echoes do not', async () => {
    const id = await live({ name: 'Takeover', trigger: 'dm', keywords: ['takeover'], opening_button: 'Send it', link_url: 'https://example.com/t', track_clicks: false, once_per_user: false });
    const sam = ctx.fakeA.addUser({ id: '7779201', username: 'sam' });
    const toSam = () => ctx.fakeA.state.messages.filter((m) => m.recipient.id === sam.id);
    await deliver(ctx, messageWebhook(entry(), sam.id, 'to-m1', 'takeover')).expect(200);
    await settle(ctx);
    expect(toSam()).toHaveLength(1);
    // The echo of the service's own opening DM: no takeover.
    await deliver(ctx, messageWebhook(entry(), sam.id, toSam()[0].id, (toSam()[0].message as any).attachment.payload.text, { echo: true })).expect(200);
    await settle(ctx);
    expect((await get(`/events?kind=human_takeover&limit=50`)).body.data).toHaveLength(0);

    // A person of the account answers by hand in the inbox.
    await deliver(ctx, messageWebhook(entry(), sam.id, 'to-human-1', 'Hi Sam, Anna here. What do you need?', { echo: true })).expect(200);
    await settle(ctx);
    const [run] = await ctx.ds.query(`SELECT taken_over_at IS NOT NULL AS taken, state FROM ${ctx.schema}.runs WHERE message_id = 'to-m1'`);
    expect(run).toEqual({ taken: true, state: 'awaiting_tap' });
    const button = (toSam()[0].message as any).attachment.payload.buttons[0].payload;
    await deliver(ctx, postbackWebhook(entry(), sam.id, 'to-pb-1', button)).expect(200);
    await deliver(ctx, messageWebhook(entry(), sam.id, 'to-m2', 'takeover')).expect(200);
    await settle(ctx);
    expect(toSam()).toHaveLength(1); // nothing automated while the person of the account talks
    const [skipped] = await ctx.ds.query(`SELECT state, error FROM ${ctx.schema}.runs WHERE message_id = 'to-m2'`);
    expect(skipped).toEqual({ state: 'skipped', error: 'human_takeover' });

    clock().advance(61 * 60_000); // AUTOMATION_TAKEOVER_MINUTES (60) over
    await deliver(ctx, messageWebhook(entry(), sam.id, 'to-m3', 'takeover')).expect(200);
    await drain();
    expect(toSam()).toHaveLength(2);
    const funnel = (await get(`/automations/${id}/funnel`)).body;
    expect(funnel).toMatchObject({ triggered: 2, skipped: 1, human_takeover: 2 });
    const texts = (await get(`/events?automation_id=${id}&limit=50`)).body.data.map((e: { kind: string; text: string | null }) => `${e.kind}: ${e.text ?? ''}`);
    expect(texts).toEqual(expect.arrayContaining([expect.stringMatching(/^human_takeover: a person of the account answered by hand; automation paused/), expect.stringMatching(/^skipped: human_takeover: tap not acted on/), expect.stringMatching(/^skipped: human_takeover: a person of the account is answering/)]));
  });
});
