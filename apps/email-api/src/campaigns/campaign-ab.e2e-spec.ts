import { Database } from '@platform/database';
import { startFakeDnsServer, startFakeSmtpSink, type FakeDnsServer, type FakeSmtpSink, type SmtpMessage, type TestRabbit } from '@platform/testing';
import { MailEventsService } from '../mail-events/mail-events.service';
import { AbTestWorker } from './ab-test.worker';
import { bearer, decodeQuotedPrintable, eventually, newProject, startEmailApi, type EmailTestApp, type TestProject } from '../../test/helpers';
import { testRabbit, verifiedDomain } from '../../test/marketing';

const BASE = 'https://mail.example.test/email';
const BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';
/** Apple Mail Privacy Protection's agent: an open it makes is no person's. */
const APPLE_PROXY = 'Mozilla/5.0';
const CONTACTS = 40;

/** The open pixel's path in a mail as the recipient's client sees it. */
function pixelOf(m: SmtpMessage): string {
  const pixel = new RegExp(`${BASE}(/t/o/[^"]+)"`).exec(decodeQuotedPrintable(m.body))?.[1];
  if (!pixel) throw new Error('no pixel in the mail');
  return pixel;
}

describe('A/B tests of campaigns (e2e)', () => {
  let t: EmailTestApp;
  let dns: FakeDnsServer;
  let smtp: FakeSmtpSink;
  let rabbit: TestRabbit | undefined;
  let db: Database;

  beforeAll(async () => {
    dns = await startFakeDnsServer();
    smtp = await startFakeSmtpSink();
    const broker = await testRabbit();
    rabbit = broker.rabbit;
    t = await startEmailApi({ ...broker.env, DNS_SERVERS: dns.address, SMTP_URL: smtp.url, EMAIL_SEND_RATE: '1000', PUBLIC_BASE_URL: BASE });
    db = t.app.get(Database);
  });
  afterAll(async () => {
    await t?.close();
    await dns?.close();
    await smtp?.close();
    await rabbit?.cleanup();
  });

  /** A project with a verified domain and `CONTACTS` subscribed contacts. */
  async function listOf(name: string, domain: string): Promise<{ project: TestProject; from: string; emails: string[] }> {
    const { project } = await newProject(t, name);
    await verifiedDomain(t, dns, project, domain);
    const emails = Array.from({ length: CONTACTS }, (_, i) => `${name.toLowerCase()}${i}@example.com`);
    for (const email of emails) await t.http.post('/contacts').set(bearer(project.secretKey)).send({ email, subscribed: true }).expect(201);
    return { project, from: `news@${domain}`, emails };
  }

  const mailsOf = (campaignId: string) => smtp.messages.filter((m) => m.headers['x-campaign-id'] === campaignId);
  const get = async (project: TestProject, path: string) => (await t.http.get(path).set(bearer(project.secretKey)).expect(200)).body;
  const phase = async (project: TestProject, id: string) => {
    const c = await get(project, `/campaigns/${id}`);
    return c.status === 'SENDING' ? c.abTest.phase : c.status;
  };
  /** Each recipient with the number of copies the sink got; every one must have exactly one. */
  function expectOnceEach(campaignId: string, emails: string[]): void {
    const copies = new Map<string, number>();
    for (const m of mailsOf(campaignId)) copies.set(m.to[0], (copies.get(m.to[0]) ?? 0) + 1);
    expect([...copies.keys()].sort()).toEqual([...emails].sort());
    expect([...copies.entries()].filter(([, n]) => n !== 1)).toEqual([]);
  }

  it('opens decide: 20 % get A or B, human opens of B make it win after the wait, the rest gets B, nobody twice', async () => {
    const { project, from, emails } = await listOf('Opens', 'opens.acme.test');
    const sk = bearer(project.secretKey);
    const created = await t.http
      .post('/campaigns')
      .set(sk)
      .send({
        name: 'Spring sale',
        subject: 'Spring sale',
        body: '<p>Our spring sale</p>',
        from,
        audienceType: 'ALL',
        abTest: { variants: [{ subject: 'A: 20 % off' }, { subject: 'B: spring is here', body: '<p>Spring!</p>' }], testShare: 20, metric: 'opens', waitMinutes: 120 },
      })
      .expect(201);
    const id = created.body.id as string;
    expect(created.body.abTest).toEqual({
      variants: [
        { id: 'A', subject: 'A: 20 % off', body: null },
        { id: 'B', subject: 'B: spring is here', body: '<p>Spring!</p>' },
      ],
      testShare: 20,
      metric: 'opens',
      waitMinutes: 120,
      phase: null,
      testSize: null,
      winnerDueAt: null,
      winner: null,
    });
    const sent = await t.http.post(`/campaigns/${id}/send`).set(sk).send({}).expect(200);
    expect(sent.body).toMatchObject({ status: 'SENDING', abTest: { phase: 'testing' } });

    // the test mails go out, then the wait starts: 20 % of 40, four per variant
    await eventually(async () => (await phase(project, id)) === 'waiting', 'the waiting phase');
    const waiting = await get(project, `/campaigns/${id}`);
    expect(waiting.abTest.testSize).toBe(8);
    expect(new Date(waiting.abTest.winnerDueAt).getTime()).toBeGreaterThan(Date.now() + 100 * 60_000);
    const test = mailsOf(id);
    expect(test).toHaveLength(8);
    const a = test.filter((m) => m.subject === 'A: 20 % off');
    const b = test.filter((m) => m.subject === 'B: spring is here');
    expect([a.length, b.length]).toEqual([4, 4]);
    expect(decodeQuotedPrintable(a[0].body)).toContain('Our spring sale');
    expect(decodeQuotedPrintable(b[0].body)).toContain('Spring!');
    const variants = await db.rows<{ ab_variant: number; n: number }>(
      `SELECT ab_variant, count(*)::int AS n FROM ${db.table('emails')} WHERE campaign_id = $1 GROUP BY ab_variant ORDER BY ab_variant`,
      [id],
    );
    expect(variants).toEqual([
      { ab_variant: 0, n: 4 },
      { ab_variant: 1, n: 4 },
    ]);

    // out of the prefetch window; every A mail opened by Apple's proxy (no person), two B mails by people
    await db.affected(`UPDATE ${db.table('emails')} SET sent_at = now() - interval '10 minutes' WHERE campaign_id = $1`, [id]);
    for (const m of a) await t.http.get(pixelOf(m)).set('User-Agent', APPLE_PROXY).expect(200);
    for (const m of b.slice(0, 2)) await t.http.get(pixelOf(m)).set('User-Agent', BROWSER).expect(200);
    await t.app.get(MailEventsService).flushTracking();
    const before = (await get(project, `/campaigns/${id}/stats`)).abTest;
    expect(before).toMatchObject({
      phase: 'waiting',
      metric: 'opens',
      audience: CONTACTS,
      testSize: 8,
      winner: null,
      variants: [
        { id: 'A', recipients: 4, sent: 4, delivered: 4, opened: 0, clicked: 0, openRate: 0, clickRate: 0 },
        { id: 'B', recipients: 4, sent: 4, delivered: 4, opened: 2, clicked: 0, openRate: 0.5, clickRate: 0 },
      ],
      rest: { recipients: 0, sent: 0 },
      // 2/4 against 0/4: z = 1.633, p = 0.1025, noise at this size
      significance: { metric: 'opens', variants: ['B', 'A'], z: 1.633, pValue: 0.102470, significant: false },
    });

    // the wait runs out (its due time moved into the past): B wins by the metric and goes to the other 32
    await db.affected(`UPDATE ${db.table('campaigns')} SET ab_due_at = now() - interval '1 second' WHERE id = $1`, [id]);
    await eventually(async () => (await phase(project, id)) === 'SENT', 'the campaign to be SENT');
    expectOnceEach(id, emails);
    const rest = mailsOf(id).filter((m) => !test.includes(m));
    expect(rest).toHaveLength(CONTACTS - 8);
    expect(rest.every((m) => m.subject === 'B: spring is here' && decodeQuotedPrintable(m.body).includes('Spring!'))).toBe(true);
    const stats = await get(project, `/campaigns/${id}/stats`);
    expect(stats).toMatchObject({ status: 'SENT', recipients: CONTACTS, sent: CONTACTS, queued: 0 });
    expect(stats.abTest).toMatchObject({
      phase: 'winner',
      rest: { recipients: 32, sent: 32, delivered: 32, opened: 0 },
      winner: {
        variant: 'B',
        by: 'metric',
        trigger: 'wait',
        tie: false,
        figures: [
          { variant: 'A', delivered: 4, successes: 0, rate: 0 },
          { variant: 'B', delivered: 4, successes: 2, rate: 0.5 },
        ],
        significance: { variants: ['B', 'A'], significant: false },
      },
    });
    expect((await get(project, `/campaigns/${id}`)).abTest).toMatchObject({ phase: 'winner', winner: 'B' });
  });

  it('POST /campaigns/:id/ab/winner ends the wait early with a named variant; its refusals', async () => {
    const { project, from, emails } = await listOf('Early', 'early.acme.test');
    const sk = bearer(project.secretKey);
    const body = { name: 'Launch', subject: 'Launch', body: '<p>New</p>', from, audienceType: 'ALL' };
    const abTest = { variants: [{ subject: 'Variant A' }, { subject: 'Variant B' }, { subject: 'Variant C' }], testShare: 30, metric: 'clicks', waitMinutes: 43_200 };
    const plain = await t.http.post('/campaigns').set(sk).send(body).expect(201);
    expect(plain.body.abTest).toBeNull();
    expect((await t.http.post(`/campaigns/${plain.body.id}/ab/winner`).set(sk).send({}).expect(409)).body.error.code).toBe('CAMPAIGN_NOT_AB_TEST');
    const id = (await t.http.post('/campaigns').set(sk).send({ ...body, abTest }).expect(201)).body.id as string;
    expect((await t.http.post(`/campaigns/${id}/ab/winner`).set(sk).send({}).expect(409)).body.error.code).toBe('AB_TEST_NOT_RUNNING');
    await t.http.post(`/campaigns/${id}/send`).set(sk).send({}).expect(200);
    // the test changes only while DRAFT
    expect((await t.http.put(`/campaigns/${id}`).set(sk).send({ ...body, abTest }).expect(409)).body.error.code).toBe('CAMPAIGN_NOT_DRAFT');
    await eventually(async () => (await phase(project, id)) === 'waiting', 'the waiting phase');
    expect(mailsOf(id)).toHaveLength(12);
    for (const v of ['A', 'B', 'C']) expect(mailsOf(id).filter((m) => m.subject === `Variant ${v}`)).toHaveLength(4);

    const wrong = await t.http.post(`/campaigns/${id}/ab/winner`).set(sk).send({ variant: 'D' }).expect(422);
    expect(wrong.body.error).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ field: 'variant', message: 'this test has the variants A, B, C' }] });
    expect((await t.http.post(`/campaigns/${id}/ab/winner`).set(sk).send({ variant: 'E' }).expect(422)).body.error.code).toBe('VALIDATION_ERROR');
    const picked = await t.http.post(`/campaigns/${id}/ab/winner`).set(sk).send({ variant: 'C' }).expect(200);
    expect(picked.body).toMatchObject({ status: 'SENDING', abTest: { phase: 'winner', winner: 'C' } });
    expect((await t.http.post(`/campaigns/${id}/ab/winner`).set(sk).send({}).expect(409)).body.error.code).toBe('AB_WINNER_PICKED');

    await eventually(async () => (await phase(project, id)) === 'SENT', 'the campaign to be SENT');
    expectOnceEach(id, emails);
    expect(mailsOf(id).filter((m) => m.subject === 'Variant C')).toHaveLength(4 + 28);
    const stats = await get(project, `/campaigns/${id}/stats`);
    expect(stats.abTest).toMatchObject({ metric: 'clicks', testSize: 12, winner: { variant: 'C', by: 'forced', trigger: 'early', tie: false }, rest: { recipients: 28 } });
    expect(stats.abTest.variants.map((v: { id: string; recipients: number }) => [v.id, v.recipients])).toEqual([['A', 4], ['B', 4], ['C', 4]]);
  });

  it('a scheduled A/B campaign starts testing when the scheduler starts it; cancelled while waiting, no winner goes out', async () => {
    const { project, from } = await listOf('Later', 'later.acme.test');
    const sk = bearer(project.secretKey);
    const abTest = { variants: [{ subject: 'One' }, { subject: 'Two' }], testShare: 10, metric: 'opens', waitMinutes: 30 };
    const id = (await t.http.post('/campaigns').set(sk).send({ name: 'Later', subject: 'S', body: '<p>B</p>', from, audienceType: 'ALL', abTest }).expect(201)).body.id as string;
    const scheduled = await t.http.post(`/campaigns/${id}/send`).set(sk).send({ scheduledFor: new Date(Date.now() + 3_600_000).toISOString() }).expect(200);
    expect(scheduled.body).toMatchObject({ status: 'SCHEDULED', abTest: { phase: null } });
    await db.affected(`UPDATE ${db.table('campaigns')} SET scheduled_for = now() - interval '1 second' WHERE id = $1`, [id]);
    await eventually(async () => (await phase(project, id)) === 'waiting', 'the waiting phase');
    expect(mailsOf(id)).toHaveLength(4);
    await t.http.post(`/campaigns/${id}/cancel`).set(sk).send({}).expect(200);
    await db.affected(`UPDATE ${db.table('campaigns')} SET ab_due_at = now() - interval '1 second' WHERE id = $1`, [id]);
    expect((await t.http.post(`/campaigns/${id}/ab/winner`).set(sk).send({}).expect(409)).body.error.code).toBe('AB_TEST_NOT_RUNNING');
    // the worker's rounds leave it alone
    await t.app.get(AbTestWorker).drain();
    const after = await get(project, `/campaigns/${id}/stats`);
    expect(after).toMatchObject({ status: 'CANCELLED', recipients: 4, abTest: { phase: 'waiting', winner: null } });
    expect(mailsOf(id)).toHaveLength(4);
  });

  it('refuses a malformed abTest with the fields named (422) and documents the routes', async () => {
    const { project } = await newProject(t, 'Invalid');
    await verifiedDomain(t, dns, project, 'invalid.acme.test');
    const sk = bearer(project.secretKey);
    const body = { name: 'X', subject: 'S', body: '<p>B</p>', from: 'news@invalid.acme.test', audienceType: 'ALL' };
    const ok = { variants: [{ subject: 'A' }, { subject: 'B' }], testShare: 20, metric: 'opens', waitMinutes: 60 };
    const cases: Array<[unknown, string]> = [
      [{ ...ok, variants: [{ subject: 'A' }] }, 'abTest.variants'],
      [{ ...ok, variants: [1, 2, 3, 4, 5].map((n) => ({ subject: `${n}` })) }, 'abTest.variants'],
      [{ ...ok, variants: [{ subject: 'A' }, 'B'] }, 'abTest.variants'],
      [{ ...ok, variants: [{ subject: 'A' }, { subject: 'B\r\nBcc: x@y.test' }] }, 'abTest.variants.1.subject'],
      [{ ...ok, variants: [{ subject: 'A' }, {}] }, 'abTest.variants.1'],
      [{ ...ok, testShare: 0 }, 'abTest.testShare'],
      [{ ...ok, testShare: 51 }, 'abTest.testShare'],
      [{ ...ok, testShare: 12.5 }, 'abTest.testShare'],
      [{ ...ok, metric: 'replies' }, 'abTest.metric'],
      [{ ...ok, waitMinutes: 0 }, 'abTest.waitMinutes'],
      [{ ...ok, waitMinutes: 43_201 }, 'abTest.waitMinutes'],
      [{ ...ok, extra: true }, 'abTest.extra'],
      [[ok], 'abTest'],
    ];
    for (const [abTest, field] of cases) {
      const res = await t.http.post('/campaigns').set(sk).send({ ...body, abTest }).expect(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    const docs = (await t.http.get('/api/docs-json').expect(200)).body;
    expect(docs.paths['/campaigns/{id}/ab/winner'].post.description).toContain('tie goes to the earlier variant');
    expect(docs.components.schemas.AbTestBodyDto.required).toEqual(['variants', 'testShare', 'metric', 'waitMinutes']);
  });
});
