import { Database } from '@platform/database';
import { startFakeDnsServer, startFakeSmtpSink, type FakeDnsServer, type FakeSmtpSink, type SmtpMessage, type TestRabbit } from '@platform/testing';
import { bearer, decodeQuotedPrintable, eventually, newProject, startEmailApi, type EmailTestApp, type TestProject } from '../../test/helpers';
import { testRabbit, verifiedDomain } from '../../test/marketing';
import { TrackingLinks } from '../tracking/tracking-links';
import { MailEventsRepository } from './mail-events.repository';
import { MailEventsService } from './mail-events.service';
import { RollupWorker } from './rollup.worker';

const BASE = 'https://mail.example.test/email';
const BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';

/** The tracking paths of a mail (pixel, links in order) as the recipient's client sees them, relative to the service. */
function trackingPaths(m: SmtpMessage): { pixel: string; links: string[] } {
  const body = decodeQuotedPrintable(m.body);
  const pixel = new RegExp(`${BASE}(/t/o/[^"]+)"`).exec(body)?.[1];
  const links = [...body.matchAll(new RegExp(`href="${BASE}(/t/c/[^"]+)"`, 'g'))].map((x) => x[1]);
  if (!pixel) throw new Error(`no pixel in ${body}`);
  return { pixel, links };
}

describe('mail events, tracking and suppressions (e2e)', () => {
  let t: EmailTestApp;
  let dns: FakeDnsServer;
  let smtp: FakeSmtpSink;
  let rabbit: TestRabbit | undefined;
  let db: Database;
  let project: TestProject;
  const sk = () => bearer(project.secretKey);
  const q = <T>(sql: string, params: unknown[] = []) => db.rows<T>(sql, params);
  const campaignUntilSent = (id: string) => eventually(async () => (await t.http.get(`/campaigns/${id}`).set(sk()).expect(200)).body.status === 'SENT', `campaign ${id} SENT`, 800);

  beforeAll(async () => {
    dns = await startFakeDnsServer();
    smtp = await startFakeSmtpSink();
    const broker = await testRabbit();
    rabbit = broker.rabbit;
    t = await startEmailApi({
      ...broker.env,
      DNS_SERVERS: dns.address,
      SMTP_URL: smtp.url,
      EMAIL_SEND_RATE: '500',
      PUBLIC_BASE_URL: BASE,
      SCANNER_WINDOW_SECONDS: '60',
      PREFETCH_WINDOW_SECONDS: '60',
      PAUSE_MIN_SENDS: '20',
    });
    db = t.app.get(Database);
    ({ project } = await newProject(t, 'Deliverability'));
    await verifiedDomain(t, dns, project, 'news.acme.test');
  });
  afterAll(async () => {
    await t?.close();
    await dns?.close();
    await smtp?.close();
    await rabbit?.cleanup();
  });
  beforeEach(() => smtp.reset());

  it('a campaign mail opened and clicked through the public paths: counted once, proxies and scanners flagged', async () => {
    const emails = [0, 1, 2, 3].map((i) => `track${i}@example.com`);
    for (const email of emails) await t.http.post('/contacts').set(sk()).send({ email, subscribed: true }).expect(201);
    const created = await t.http
      .post('/campaigns')
      .set(sk())
      .send({
        name: 'Tracked',
        subject: 'Hi',
        body: '<html><body><p>Hi</p><a href="https://shop.test/a?x=1&amp;y=2">A</a> <a href="https://shop.test/b">B</a> <a href="{{unsubscribeUrl}}">unsubscribe</a></body></html>',
        from: 'hello@news.acme.test',
        audienceType: 'FILTERED',
        audienceCondition: { logic: 'AND', groups: [{ filters: [{ field: 'email', operator: 'contains', value: 'track' }] }] },
      })
      .expect(201);
    const id = created.body.id as string;
    await t.http.post(`/campaigns/${id}/send`).set(sk()).send({}).expect(200);
    await campaignUntilSent(id);
    const messages = await eventually(async () => {
      const mine = smtp.messages.filter((m) => emails.includes(m.to[0]));
      return mine.length >= 4 && mine;
    }, 'the four campaign mails');
    const by = (email: string) => trackingPaths(messages.find((m) => m.to[0] === email)!);
    const [m0, m1, m2, m3] = emails.map(by);
    // the unsubscribe link stays as it is; the two shop links are tracked
    expect(m0.links).toHaveLength(2);
    expect(decodeQuotedPrintable(messages[0].body)).toContain(`${BASE}/unsubscribe/`);
    // every mail but track2's was sent ten minutes ago (out of the prefetch and scanner windows)
    await db.affected(`UPDATE ${db.table('emails')} SET sent_at = now() - interval '10 minutes' WHERE campaign_id = $1 AND to_email <> 'track2@example.com'`, [id]);

    // track0: opened twice by a person, clicks A
    for (let i = 0; i < 2; i++) {
      const pixel = await t.http.get(m0.pixel).set('User-Agent', BROWSER).expect(200);
      expect(pixel.headers['content-type']).toBe('image/gif');
      expect(pixel.headers['cache-control']).toContain('no-store');
    }
    const a = await t.http.get(m0.links[0]).set('User-Agent', BROWSER).expect(302);
    expect(a.headers.location).toBe('https://shop.test/a?x=1&y=2');
    // track1: Apple Mail Privacy Protection fetches the pixel; a scanner sends HEAD to B
    await t.http.get(m1.pixel).set('User-Agent', 'Mozilla/5.0').expect(200);
    const head = await t.http.head(m1.links[1]).set('User-Agent', BROWSER).expect(302);
    expect(head.headers.location).toBe('https://shop.test/b');
    // track2: clicked within seconds of sending (an agent with quotes and a backslash, kept as sent)
    const odd = 'Mozilla/5.0 (X11; "quoted") \\ {odd}, agent';
    await t.http.get(m2.links[0]).set('User-Agent', odd).expect(302);
    // track3: every link at once
    await t.http.get(m3.links[0]).set('User-Agent', BROWSER).expect(302);
    await t.http.get(m3.links[1]).set('User-Agent', BROWSER).expect(302);

    // tampered tokens record nothing; a signed index the mail does not have is no redirect
    const tampered = m0.links[0].replace(/\.0\./, '.1.');
    expect((await t.http.get(tampered).expect(404)).body.error.code).toBe('INVALID_TRACKING_LINK');
    await t.http.get(m0.pixel.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'))).expect(200);
    const mailId = /\/t\/o\/(eml_[0-9a-z]+)\./.exec(m0.pixel)![1];
    await t.http.get(`/t/c/${t.app.get(TrackingLinks).tokens.click(mailId, 7)}`).expect(404);

    // opens and clicks are written in batches right after their requests
    await t.app.get(MailEventsService).flushTracking();
    const events = await q<{ to: string; type: string; flag: string | null; url: string | null; data: unknown }>(
      `SELECT m.to_email AS to, e.type, e.flag, e.url, e.data FROM ${db.table('mail_events')} e JOIN ${db.table('emails')} m ON m.id = e.email_id WHERE e.campaign_id = $1 AND e.type IN ('open', 'click') ORDER BY e.created_at, e.id`,
      [id],
    );
    const seen = { userAgent: BROWSER };
    const followed = (method: string, userAgent = BROWSER) => ({ userAgent, method });
    expect(events).toEqual([
      { to: 'track0@example.com', type: 'open', flag: null, url: null, data: seen },
      { to: 'track0@example.com', type: 'open', flag: null, url: null, data: seen },
      { to: 'track0@example.com', type: 'click', flag: null, url: 'https://shop.test/a?x=1&y=2', data: followed('GET') },
      { to: 'track1@example.com', type: 'open', flag: 'privacy_proxy', url: null, data: { userAgent: 'Mozilla/5.0' } },
      { to: 'track1@example.com', type: 'click', flag: 'scanner', url: 'https://shop.test/b', data: followed('HEAD') },
      { to: 'track2@example.com', type: 'click', flag: 'scanner', url: 'https://shop.test/a?x=1&y=2', data: followed('GET', odd) },
      { to: 'track3@example.com', type: 'click', flag: null, url: 'https://shop.test/a?x=1&y=2', data: followed('GET') },
      { to: 'track3@example.com', type: 'click', flag: 'scanner', url: 'https://shop.test/b', data: followed('GET') },
    ]);
    // the rollups count them too (a batch queues one count per quarter hour, type and flag); the
    // burst's first click was written unflagged
    await t.app.get(RollupWorker).drain();
    const series = (await t.http.get('/analytics/timeseries?interval=hour').set(sk()).expect(200)).body;
    expect(series.totals).toMatchObject({ opened: 2, flaggedOpens: 1, clicked: 2, flaggedClicks: 3 });
    // one send event per mail, whatever else happened
    expect((await q<{ n: number }>(`SELECT count(*)::int AS n FROM ${db.table('mail_events')} WHERE campaign_id = $1 AND type = 'send'`, [id]))[0].n).toBe(4);
    // the mail's columns follow the human events only
    const stamped = await q<{ to_email: string; opened: boolean; clicked: boolean }>(
      `SELECT to_email, opened_at IS NOT NULL AS opened, clicked_at IS NOT NULL AS clicked FROM ${db.table('emails')} WHERE campaign_id = $1 ORDER BY to_email`,
      [id],
    );
    expect(stamped).toEqual([
      { to_email: 'track0@example.com', opened: true, clicked: true },
      { to_email: 'track1@example.com', opened: false, clicked: false },
      { to_email: 'track2@example.com', opened: false, clicked: false },
      { to_email: 'track3@example.com', opened: false, clicked: false },
    ]);

    const stats = (await t.http.get(`/campaigns/${id}/stats`).set(sk()).expect(200)).body;
    expect(stats).toMatchObject({
      status: 'SENT',
      recipients: 4,
      sent: 4,
      delivered: 4,
      opened: 1,
      clicked: 1,
      opens: { total: 3, unique: 2, human: 2, humanUnique: 1, privacyProxy: 1 },
      // track3's first click is left out too: another link of the mail followed within 2 s
      clicks: { total: 5, unique: 4, human: 1, humanUnique: 1, scanner: 4 },
      openRate: 0.25,
      clickRate: 0.25,
      clicksPerOpen: 1,
    });

    // each event is one activity item, flagged ones say so
    const activity = async (type: string) => (await t.http.get(`/activity?campaignId=${id}&type=${type}&limit=100`).set(sk()).expect(200)).body;
    const opened = await activity('email.opened');
    expect(opened.total).toBe(3);
    expect(opened.data.map((a: { email: string; data: { human: boolean } }) => [a.email, a.data.human]).sort()).toEqual([
      ['track0@example.com', true],
      ['track0@example.com', true],
      ['track1@example.com', false],
    ]);
    expect(opened.data[0]).toMatchObject({ title: 'Hi', campaignId: id, emailId: expect.stringMatching(/^eml_/), id: expect.stringMatching(/^mev_/) });
    expect((await activity('email.clicked')).total).toBe(5);
    expect((await t.http.get(`/activity?campaignId=${id}&limit=100`).set(sk()).expect(200)).body.total).toBe(4 + 3 + 5);
    // top campaigns count people only, as the stats do
    const top = (await t.http.get('/analytics/top-campaigns').set(sk()).expect(200)).body;
    expect(top.find((c: { id: string }) => c.id === id)).toMatchObject({ name: 'Tracked', sent: 4, delivered: 4, opened: 1, clicked: 1, openRate: 0.25, clickRate: 0.25, clicksPerOpen: 1, bounceRate: 0 });

    // tracking off: links still redirect, nothing more is recorded, new mail is not rewritten
    await t.http.patch(`/users/@me/projects/${project.id}`).set(sk()).send({ trackingEnabled: false }).expect(200);
    await t.http.get(m0.links[1]).set('User-Agent', BROWSER).expect(302);
    await t.http.get(m0.pixel).set('User-Agent', BROWSER).expect(200);
    await t.app.get(MailEventsService).flushTracking();
    expect((await t.http.get(`/campaigns/${id}/stats`).set(sk()).expect(200)).body.clicks.total).toBe(5);
    smtp.reset();
    await t.http.post('/v1/send').set(sk()).send({ to: 'plain@example.com', subject: 's', body: '<a href="https://shop.test/c">c</a>' }).expect(200);
    const [plain] = await smtp.waitForMessages(1);
    expect(decodeQuotedPrintable(plain.body)).toContain('href="https://shop.test/c"');
    expect(decodeQuotedPrintable(plain.body)).not.toContain('/t/o/');
    const project2 = await t.http.patch(`/users/@me/projects/${project.id}`).set(sk()).send({ trackingEnabled: true }).expect(200);
    expect(project2.body.trackingEnabled).toBe(true);
  });

  it('a burst of clicks is told by the click before on the same mail: in the same batch or among those written before', async () => {
    const sent = await t.http.post('/v1/send').set(sk()).send({ to: 'bursts@example.com', subject: 's', body: '<a href="https://shop.test/x">x</a> <a href="https://shop.test/y">y</a>' }).expect(200);
    const emailId = sent.body.data.emails[0].email as string;
    const [mail] = await q<{ links: string[]; sent_at: Date }>(`SELECT links, coalesce(sent_at, created_at) AS sent_at FROM ${db.table('emails')} WHERE id = $1`, [emailId]);
    expect(mail.links).toHaveLength(2);
    // past the windows after sending (60 s here), so that only the burst rule flags
    const t0 = mail.sent_at.getTime() + 120_000;
    let n = 0;
    const hit = (type: 'open' | 'click', index: number, at: number) => ({ id: `mev_burst${n++}`, emailId, type, index, flag: null, userAgent: BROWSER, method: type === 'click' ? 'GET' : null, at });
    const repo = t.app.get(MailEventsRepository);
    // x, then y half a second later in the next batch: y found x among the events written
    await repo.writeHits([hit('click', 0, t0)], 60, 60);
    await repo.writeHits([hit('click', 1, t0 + 500)], 60, 60);
    // ten seconds on, in one batch: y; an open; x 0.5 s after y (a burst); x again (the same link: not one); y 5 s later (alone)
    await repo.writeHits([hit('click', 1, t0 + 10_000), hit('open', 0, t0 + 10_100), hit('click', 0, t0 + 10_500), hit('click', 0, t0 + 10_900), hit('click', 1, t0 + 15_900)], 60, 60);
    const rows = await q<{ type: string; url: string | null; flag: string | null }>(`SELECT type, url, flag FROM ${db.table('mail_events')} WHERE email_id = $1 AND type IN ('open', 'click') ORDER BY created_at`, [emailId]);
    const [x, y] = mail.links;
    expect(rows).toEqual([
      { type: 'click', url: x, flag: null },
      { type: 'click', url: y, flag: 'scanner' },
      { type: 'click', url: y, flag: null },
      { type: 'open', url: null, flag: null },
      { type: 'click', url: x, flag: 'scanner' },
      { type: 'click', url: x, flag: null },
      { type: 'click', url: y, flag: null },
    ]);
  });

  it('records each event once; hard bounces, complaints and repeated soft bounces suppress; the log is append-only', async () => {
    const mailEvents = t.app.get(MailEventsService);
    const sent = await t.http.post('/v1/send').set(sk()).send({ to: ['bouncy@example.com', 'angry@example.com', 'flaky@example.com'], subject: 's', body: 'b' }).expect(200);
    await smtp.waitForMessages(3);
    const [bouncy, angry, flaky] = sent.body.data.emails.map((e: { email: string }) => e.email) as string[];
    const bounce = { type: 'bounce' as const, bounceType: 'hard' as const, emailId: bouncy, idempotencyKey: 'dsn:<r1@mx.test>:bouncy@example.com', source: 'smtp-dsn', data: { status: '5.1.1' } };
    const first = await mailEvents.record(bounce);
    expect(first).toMatchObject({ recorded: true, projectId: project.id, eventId: expect.stringMatching(/^mev_/) });
    expect(await mailEvents.record(bounce)).toMatchObject({ recorded: false, eventId: null });
    await mailEvents.record({ type: 'complaint', emailId: angry, idempotencyKey: 'arf:<f1@fbl.test>', source: 'smtp-arf' });
    for (let i = 0; i < 3; i++) {
      const r = await mailEvents.record({ type: 'bounce', bounceType: 'soft', emailId: flaky, idempotencyKey: `dsn:<s${i}@mx.test>`, source: 'smtp-dsn' });
      expect(r.recorded).toBe(true);
      const listed = (await t.http.get('/suppressions?search=flaky').set(sk()).expect(200)).body.data;
      expect(listed).toHaveLength(i === 2 ? 1 : 0);
    }
    // an unknown mail belongs to no project: nothing recorded
    expect(await mailEvents.record({ type: 'delivery', emailId: 'eml_nosuchmail0000000000', idempotencyKey: 'x', source: 'ses' })).toMatchObject({ recorded: false, projectId: null });
    const list = (await t.http.get('/suppressions').set(sk()).expect(200)).body;
    expect(list.data.map((s: { email: string; reason: string; source: string }) => [s.email, s.reason, s.source]).sort()).toEqual([
      ['angry@example.com', 'complaint', 'smtp-arf'],
      ['bouncy@example.com', 'hard_bounce', 'smtp-dsn'],
      ['flaky@example.com', 'hard_bounce', 'soft-bounce-escalation'],
    ]);
    const rows = await q<{ id: string; bounced: boolean; complained: boolean }>(`SELECT id, bounced_at IS NOT NULL AS bounced, complained_at IS NOT NULL AS complained FROM ${db.table('emails')} WHERE id = ANY($1) ORDER BY to_email`, [[bouncy, angry, flaky]]);
    expect(rows.map((r) => [r.bounced, r.complained])).toEqual([[false, true], [true, false], [false, false]]);
    await expect(db.affected(`UPDATE ${db.table('mail_events')} SET type = 'open' WHERE email_id = $1`, [bouncy])).rejects.toThrow(/append-only/);
  });

  it('suppression list: add, search, page, delete; it survives the contact; /v1/send and campaigns skip suppressed addresses', async () => {
    for (let i = 0; i < 5; i++) await t.http.post('/suppressions').set(sk()).send({ email: `Manual${i}@Example.com` }).expect(201);
    const again = await t.http.post('/suppressions').set(sk()).send({ email: 'manual0@example.com', reason: 'complaint' }).expect(201);
    expect(again.body).toMatchObject({ email: 'manual0@example.com', reason: 'manual', source: 'api', createdAt: expect.any(String) });
    await t.http.post('/suppressions').set(sk()).send({ email: 'nope' }).expect(422);
    await t.http.post('/suppressions').set(sk()).send({ email: 'a@b.test', reason: 'whim' }).expect(422);
    const page1 = (await t.http.get('/suppressions?search=MANUAL&limit=2').set(sk()).expect(200)).body;
    expect(page1).toMatchObject({ total: 5, hasMore: true });
    const page2 = (await t.http.get(`/suppressions?search=manual&limit=2&cursor=${page1.cursor}`).set(sk()).expect(200)).body;
    const page3 = (await t.http.get(`/suppressions?search=manual&limit=2&cursor=${page2.cursor}`).set(sk()).expect(200)).body;
    expect([...page1.data, ...page2.data, ...page3.data].map((s: { email: string }) => s.email).sort()).toEqual([0, 1, 2, 3, 4].map((i) => `manual${i}@example.com`));
    expect(page3).toMatchObject({ hasMore: false, cursor: null, total: 0 });
    await t.http.get('/suppressions?cursor=garbage').set(sk()).expect(400);
    // another project sees none of them
    const { project: other } = await newProject(t, 'Other');
    expect((await t.http.get('/suppressions').set(bearer(other.secretKey)).expect(200)).body.total).toBe(0);
    await t.http.delete('/suppressions/manual4%40example.com').set(bearer(other.secretKey)).expect(404);
    await t.http.delete('/suppressions/manual4%40example.com').set(sk()).expect(204);
    await t.http.delete('/suppressions/manual4%40example.com').set(sk()).expect(404);

    // survives the contact's deletion and re-creation
    const contact = await t.http.post('/contacts').set(sk()).send({ email: 'manual1@example.com', subscribed: true }).expect(201);
    await t.http.delete(`/contacts/${contact.body.id}`).set(sk()).expect(204);
    const send = await t.http.post('/v1/send').set(sk()).send({ to: ['manual1@example.com', 'fine@example.com', 'bouncy@example.com'], subject: 's', body: 'b' }).expect(200);
    expect(send.body.data.emails.map((e: { status: string; suppression?: { reason: string } }) => [e.status, e.suppression?.reason])).toEqual([
      ['SUPPRESSED', 'manual'],
      ['QUEUED', undefined],
      ['SUPPRESSED', 'hard_bounce'],
    ]);
    // the override for mail the recipient asked for: past a manual entry, never past a hard bounce
    const reset = await t.http.post('/v1/send').set(sk()).send({ to: ['manual1@example.com', 'bouncy@example.com'], subject: 'Reset your password', body: 'b', bypassSuppression: true }).expect(200);
    expect(reset.body.data.emails.map((e: { status: string }) => e.status)).toEqual(['QUEUED', 'SUPPRESSED']);
    await t.http.post('/v1/send').set(sk()).send({ to: 'x@example.com', subject: 's', body: 'b', type: 'marketing', bypassSuppression: true }).expect(422);
    const mailed = () => smtp.messages.map((m) => m.to[0]).filter((to) => !to.startsWith('owner.'));
    await eventually(async () => mailed().length >= 2, 'two mails');
    expect(mailed().sort()).toEqual(['fine@example.com', 'manual1@example.com']);

    // a campaign skips them
    smtp.reset();
    for (const email of ['camp-ok@example.com', 'camp-bad@example.com']) await t.http.post('/contacts').set(sk()).send({ email, subscribed: true }).expect(201);
    await t.http.post('/suppressions').set(sk()).send({ email: 'camp-bad@example.com', reason: 'complaint' }).expect(201);
    const c = await t.http
      .post('/campaigns')
      .set(sk())
      .send({ name: 'Skip', subject: 's', body: '<p>x</p>', from: 'hello@news.acme.test', audienceType: 'FILTERED', audienceCondition: { logic: 'AND', groups: [{ filters: [{ field: 'email', operator: 'contains', value: 'camp-' }] }] } })
      .expect(201);
    await t.http.post(`/campaigns/${c.body.id}/send`).set(sk()).send({}).expect(200);
    await campaignUntilSent(c.body.id);
    await eventually(async () => mailed().length >= 1, 'the campaign mail');
    expect(mailed()).toEqual(['camp-ok@example.com']);
    expect((await t.http.get(`/campaigns/${c.body.id}/stats`).set(sk()).expect(200)).body.recipients).toBe(1);

    // unsubscribing puts the address on the list (reason unsubscribe); subscribing again lifts it
    const u = await t.http.post('/contacts').set(sk()).send({ email: 'unsub@example.com', subscribed: true }).expect(201);
    await t.http.patch(`/contacts/${u.body.id}`).set(sk()).send({ subscribed: false }).expect(200);
    expect((await t.http.get('/suppressions?search=unsub@').set(sk()).expect(200)).body.data).toEqual([expect.objectContaining({ email: 'unsub@example.com', reason: 'unsubscribe', source: 'contact' })]);
    await t.http.patch(`/contacts/${u.body.id}`).set(sk()).send({ subscribed: true }).expect(200);
    expect((await t.http.get('/suppressions?search=unsub@').set(sk()).expect(200)).body.data).toEqual([]);
  });

  it('a project whose complaint rate crosses the threshold is paused for review', async () => {
    const { project: p } = await newProject(t, 'Complained about');
    const sent = await t.http.post('/v1/send').set(bearer(p.secretKey)).send({ to: Array.from({ length: 20 }, (_, i) => `r${i}@example.com`), subject: 's', body: 'b' }).expect(200);
    await smtp.waitForMessages(20);
    await eventually(async () => (await q<{ n: number }>(`SELECT count(*)::int AS n FROM ${db.table('mail_events')} WHERE project_id = $1 AND type = 'send'`, [p.id]))[0].n === 20, 'send events');
    await t.app.get(MailEventsService).record({ type: 'complaint', emailId: sent.body.data.emails[0].email, idempotencyKey: 'arf:pause', source: 'smtp-arf' });
    const [row] = await q<{ disabled: boolean; disabled_reason: string }>(`SELECT disabled, disabled_reason FROM ${db.table('projects')} WHERE id = $1`, [p.id]);
    expect(row.disabled).toBe(true);
    expect(row.disabled_reason).toMatch(/^paused for review: complaint rate 5\.00% of 20 sends/);
    expect((await t.http.post('/v1/send').set(bearer(p.secretKey)).send({ to: 'x@example.com', subject: 's', body: 'b' }).expect(403)).body.error.code).toBe('PROJECT_DISABLED');
  });

  it('analytics: the time series per day and hour of a zone, campaign totals, top events and upcoming sends, against figures computed here', async () => {
    const { project: p } = await newProject(t, 'Analytics');
    const key = bearer(p.secretKey);
    const mailEvents = t.app.get(MailEventsService);
    const sent = await t.http.post('/v1/send').set(key).send({ to: ['a1@example.com', 'a2@example.com'], subject: 'Report', body: 'b' }).expect(200);
    const [e1, e2] = sent.body.data.emails.map((e: { email: string }) => e.email) as string[];
    // events around the start of US daylight saving time (2026-03-08 02:00 local in New York) and
    // the Kolkata day boundary (18:30 UTC)
    const at = (iso: string) => new Date(iso);
    const recorded: Array<{ type: 'delivery' | 'open' | 'click' | 'bounce' | 'complaint'; at: Date; flag?: 'privacy_proxy' }> = [
      { type: 'delivery', at: at('2026-03-07T18:29:00Z') },
      { type: 'delivery', at: at('2026-03-07T18:31:00Z') },
      { type: 'open', at: at('2026-03-08T04:59:00Z') },
      { type: 'open', at: at('2026-03-08T05:01:00Z'), flag: 'privacy_proxy' },
      { type: 'open', at: at('2026-03-08T06:30:00Z') },
      { type: 'open', at: at('2026-03-08T07:10:00Z') },
      { type: 'click', at: at('2026-03-08T07:15:00Z') },
      { type: 'bounce', at: at('2026-03-09T23:59:59Z') },
      { type: 'complaint', at: at('2026-03-10T00:00:00Z') },
    ];
    for (const [i, r] of recorded.entries()) {
      await mailEvents.record({
        type: r.type,
        emailId: i % 2 ? e2 : e1,
        idempotencyKey: `analytics:${i}`,
        occurredAt: r.at,
        source: 'test',
        flag: r.flag ?? null,
        ...(r.type === 'bounce' ? { bounceType: 'soft' as const } : {}),
      });
    }
    // by hand: local day or hour of each instant, counted per type
    const localKey = (d: Date, zone: string, unit: 'day' | 'hour') => {
      const parts = Object.fromEntries(new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', hourCycle: 'h23' }).formatToParts(d).map((x) => [x.type, x.value]));
      return `${parts.year}-${parts.month}-${parts.day}T${unit === 'day' ? '00' : parts.hour}:00:00`;
    };
    const name = { delivery: 'delivered', open: 'opened', click: 'clicked', bounce: 'bounced', complaint: 'complained' } as const;
    const expected = (zone: string, unit: 'day' | 'hour') => {
      const out: Record<string, Record<string, number>> = {};
      for (const r of recorded) {
        const k = localKey(r.at, zone, unit);
        const field = r.flag ? 'flaggedOpens' : name[r.type];
        out[k] = { ...out[k], [field]: (out[k]?.[field] ?? 0) + 1 };
      }
      return out;
    };
    const actual = (body: { points: Array<Record<string, unknown>> }) => {
      const out: Record<string, Record<string, number>> = {};
      for (const point of body.points) {
        const counts = Object.fromEntries(Object.entries(point).filter(([k, v]) => !['local', 'start'].includes(k) && v !== 0)) as Record<string, number>;
        if (Object.keys(counts).length) out[point.local as string] = counts;
      }
      return out;
    };
    // the rollup worker adds the queued counts up (every WORKER_POLL_MS); here at once
    await t.app.get(RollupWorker).drain();
    const range = 'from=2026-03-06T00:00:00Z&to=2026-03-11T00:00:00Z';
    for (const zone of ['Asia/Kolkata', 'America/New_York', 'UTC']) {
      const res = (await t.http.get(`/analytics/timeseries?interval=day&timeZone=${zone}&${range}`).set(key).expect(200)).body;
      expect({ zone, counts: actual(res) }).toEqual({ zone, counts: expected(zone, 'day') });
      expect(res.totals).toMatchObject({ delivered: 2, opened: 3, flaggedOpens: 1, clicked: 1, bounced: 1, complained: 1 });
      // every local day of the range, once
      expect(new Set(res.points.map((x: { local: string }) => x.local)).size).toBe(res.points.length);
    }
    const hours = (await t.http.get(`/analytics/timeseries?interval=hour&timeZone=America/New_York&from=2026-03-07T12:00:00Z&to=2026-03-08T12:00:00Z`).set(key).expect(200)).body;
    expect(actual(hours)).toEqual(
      Object.fromEntries(Object.entries(expected('America/New_York', 'hour')).filter(([k]) => k >= '2026-03-07T07' && k < '2026-03-08T08')),
    );
    expect(hours.points.find((x: { local: string }) => x.local === '2026-03-08T03:00:00').start).toBe('2026-03-08T07:00:00.000Z');
    await t.http.get('/analytics/timeseries?timeZone=Mars/Olympus').set(key).expect(422);
    await t.http.get('/analytics/timeseries?interval=hour&from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z').set(key).expect(422);
    await t.http.get('/analytics/timeseries?interval=week').set(key).expect(422);

    // top events: tracked events counted by hand
    for (const [email, event] of [['x@example.com', 'signed_up'], ['y@example.com', 'signed_up'], ['x@example.com', 'signed_up'], ['x@example.com', 'paid']]) {
      await t.http.post('/v1/track').set(key).send({ email, event }).expect(200);
    }
    expect((await t.http.get('/analytics/top-events').set(key).expect(200)).body.map((e: { name: string; count: number; contacts: number }) => [e.name, e.count, e.contacts])).toEqual([
      ['signed_up', 3, 2],
      ['paid', 1, 1],
    ]);
    // campaign totals: nothing but transactional mail yet
    expect((await t.http.get('/analytics/campaign-stats').set(key).expect(200)).body).toMatchObject({ campaigns: 0, sent: 0, openRate: 0 });
    // upcoming: a scheduled campaign
    await verifiedDomain(t, dns, p, 'analytics.acme.test');
    await t.http.post('/contacts').set(key).send({ email: 'later@example.com', subscribed: true }).expect(201);
    const c = await t.http.post('/campaigns').set(key).send({ name: 'Later', subject: 'Soon', body: '<p>x</p>', from: 'a@analytics.acme.test', audienceType: 'ALL' }).expect(201);
    const when = new Date(Date.now() + 3_600_000).toISOString();
    await t.http.post(`/campaigns/${c.body.id}/send`).set(key).send({ scheduledFor: when }).expect(200);
    expect((await t.http.get('/activity/upcoming').set(key).expect(200)).body).toEqual([{ type: 'campaign', id: c.body.id, name: 'Later', subject: 'Soon', scheduledFor: when, audienceType: 'ALL' }]);
    // activity: the mail events of one mail, newest first, and the stats by type
    const feed = (await t.http.get(`/activity?emailId=${e1}&limit=100`).set(key).expect(200)).body;
    expect(feed.data.map((a: { type: string }) => a.type)).toEqual([expect.stringMatching(/^email\.(queued|sent)$/), 'email.complained', 'email.clicked', 'email.opened', 'email.opened', 'email.delivered']);
    const since = '2026-03-01T00:00:00Z';
    expect((await t.http.get(`/activity/stats?since=${since}`).set(key).expect(200)).body).toMatchObject({
      mailEvents: 9,
      byType: { 'email.delivered': 2, 'email.opened': 4, 'email.clicked': 1, 'email.bounced': 1, 'email.complained': 1 },
    });
    expect((await t.http.get(`/activity?since=2026-03-08T00:00:00Z&until=2026-03-09T00:00:00Z`).set(key).expect(200)).body.total).toBe(5);
    expect((await t.http.get('/activity/types').set(key).expect(200)).body).toEqual(expect.arrayContaining(['email.opened', 'email.bounced', 'event']));
  });

  it('usage of a custom field and an event name: the segments, templates and campaigns that reference them, and where', async () => {
    await t.http.post('/v1/track').set(sk()).send({ email: 'usage@example.com', event: 'usage_signed_up', data: { usage_plan: 'pro' } }).expect(200);
    const segment = await t.http
      .post('/segments')
      .set(sk())
      .send({ name: 'Usage pros', type: 'DYNAMIC', condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.usage_plan.tier', operator: 'exists' }, { field: 'event.usage_signed_up', operator: 'triggered' }] }] } })
      .expect(201);
    const template = await t.http.post('/templates').set(sk()).send({ name: 'Usage tpl', subject: 'Your {{ data.usage_plan ?? "free" }} plan', body: '<p>Hi</p>', from: 'hello@news.acme.test' }).expect(201);
    const campaign = await t.http
      .post('/campaigns')
      .set(sk())
      .send({ name: 'Usage camp', subject: 'Hi', body: '<p>{{usage_plan}}</p>', from: 'hello@news.acme.test', audienceType: 'FILTERED', audienceCondition: { logic: 'AND', groups: [{ filters: [{ field: 'event.usage_signed_up', operator: 'triggered' }] }] } })
      .expect(201);
    await t.http.post('/templates').set(sk()).send({ name: 'Unrelated', subject: '{{usage_planned}}', body: '{{data.usage_plans}}', from: 'hello@news.acme.test' }).expect(201);
    expect((await t.http.get('/contacts/fields/usage_plan/usage').set(sk()).expect(200)).body).toEqual({
      field: 'usage_plan',
      contacts: 1,
      inUse: true,
      references: {
        segments: [{ id: segment.body.id, name: 'Usage pros', where: ['condition'] }],
        templates: [{ id: template.body.id, name: 'Usage tpl', where: ['subject'] }],
        campaigns: [{ id: campaign.body.id, name: 'Usage camp', where: ['body'] }],
        workflows: [],
      },
    });
    expect((await t.http.get('/events/usage_signed_up/usage').set(sk()).expect(200)).body).toMatchObject({
      name: 'usage_signed_up',
      count: 1,
      contacts: 1,
      inUse: true,
      references: {
        segments: [{ id: segment.body.id, name: 'Usage pros', where: ['condition'] }],
        templates: [],
        campaigns: [{ id: campaign.body.id, name: 'Usage camp', where: ['audienceCondition'] }],
      },
    });
    // referenced but never tracked: still answered
    await t.http.post('/segments').set(sk()).send({ name: 'Future', type: 'DYNAMIC', condition: { logic: 'AND', groups: [{ filters: [{ field: 'event.usage_future', operator: 'triggered' }] }] } }).expect(201);
    expect((await t.http.get('/events/usage_future/usage').set(sk()).expect(200)).body).toMatchObject({ count: 0, inUse: true, references: { segments: [{ name: 'Future' }] } });
    expect((await t.http.get('/contacts/fields/usage_nothing/usage').set(sk()).expect(200)).body).toEqual({ field: 'usage_nothing', contacts: 0, inUse: false, references: { segments: [], templates: [], campaigns: [], workflows: [] } });
  });
});
