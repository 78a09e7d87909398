import { Database } from '@platform/database';
import { startFakeDnsServer, type FakeDnsServer } from '@platform/testing';
import { bearer, eventually, newAccount, newProject, startEmailApi, type EmailTestApp, type TestProject } from '../../test/helpers';
import { verifiedDomain } from '../../test/marketing';
import { MailQueue } from '../emails/mail-queue.service';
import { StoreInboundMessage } from '../inbound/store-inbound-message';
import { BillingLimitReachedError } from './billing';

type Limits = Record<'workflows' | 'campaigns' | 'transactional' | 'inbound', number | null>;
const UNLIMITED: Limits = { workflows: null, campaigns: null, transactional: null, inbound: null };

describe('billing caps (e2e, Stripe not configured)', () => {
  let t: EmailTestApp;
  let dns: FakeDnsServer;

  beforeAll(async () => {
    // The fake DNS server answers the inbound authentication checks (no records: fast `none` results).
    dns = await startFakeDnsServer();
    t = await startEmailApi({ EMAIL_RATE_LIMIT_PER_MINUTE: '100000', DNS_SERVERS: dns.address });
  });
  afterAll(async () => {
    await t?.close();
    await dns?.close();
  });

  const send = (p: TestProject, to = 'reader@example.com') => t.http.post('/v1/send').set(bearer(p.secretKey)).send({ to, subject: 'Receipt', body: '<p>thanks</p>' });
  const setLimits = (p: TestProject, limits: Partial<Limits>) =>
    t.http.put(`/users/@me/projects/${p.id}/billing-limits`).set(bearer(p.secretKey)).send({ ...UNLIMITED, ...limits });
  const consumption = async (p: TestProject) => (await t.http.get(`/users/@me/projects/${p.id}/billing-consumption`).set(bearer(p.secretKey)).expect(200)).body;

  it('starts unlimited, takes caps per category and validates them', async () => {
    const { account, project } = await newProject(t);
    const path = `/users/@me/projects/${project.id}/billing-limits`;
    expect((await t.http.get(path).set('Cookie', account.cookie).expect(200)).body).toEqual({ limits: UNLIMITED, plan: 'free', planAllowance: null });
    const set = await t.http.put(path).set('Cookie', account.cookie).send({ workflows: 5, campaigns: null, transactional: 100, inbound: 1 }).expect(200);
    expect(set.body).toEqual({ limits: { workflows: 5, campaigns: null, transactional: 100, inbound: 1 }, plan: 'free', planAllowance: null });
    expect((await t.http.get(path).set(bearer(project.secretKey)).expect(200)).body.limits).toEqual({ workflows: 5, campaigns: null, transactional: 100, inbound: 1 });

    for (const bad of [{ ...UNLIMITED, workflows: 0 }, { ...UNLIMITED, campaigns: -3 }, { ...UNLIMITED, transactional: 1.5 }, { ...UNLIMITED, inbound: '10' }, { workflows: 1 }, { ...UNLIMITED, extra: 1 }, { ...UNLIMITED, transactional: 2_000_000_000 }]) {
      const res = await t.http.put(path).set(bearer(project.secretKey)).send(bad).expect(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
    // A MEMBER reads but does not set; another user is no member at all.
    const member = await newAccount(t, 'member');
    await t.http.post(`/projects/${project.id}/members`).set('Cookie', account.cookie).send({ email: member.email }).expect(201);
    await t.http.get(path).set('Cookie', member.cookie).expect(200);
    expect((await t.http.put(path).set('Cookie', member.cookie).send(UNLIMITED).expect(403)).body.error.code).toBe('FORBIDDEN');
    const stranger = await newAccount(t, 'stranger');
    expect((await t.http.get(path).set('Cookie', stranger.cookie).expect(404)).body.error.code).toBe('PROJECT_NOT_FOUND');
  });

  it('refuses the send after the limit with 429 BILLING_LIMIT_REACHED naming the category and the reset; FAILED mail gives its unit back', async () => {
    const { project } = await newProject(t);
    await setLimits(project, { transactional: 3 }).expect(200);
    for (let i = 0; i < 3; i++) await send(project, `r${i}@example.com`).expect(200);
    const refused = await send(project, 'r3@example.com').expect(429);
    const now = new Date();
    const reset = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
    expect(refused.body.error).toMatchObject({ code: 'BILLING_LIMIT_REACHED', errors: [{ field: 'transactional', code: 'limit_reached' }] });
    expect(refused.body.error.message).toContain(reset);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Nothing of the refused send was written (the contact neither: one transaction).
    const contacts = (await t.http.get('/contacts?search=r3%40').set(bearer(project.secretKey)).expect(200)).body;
    expect(contacts.data).toEqual([]);

    // A multi-recipient send that does not fit entirely writes nothing.
    await setLimits(project, { transactional: 4 }).expect(200);
    await t.http.post('/v1/send').set(bearer(project.secretKey)).send({ to: ['a@example.com', 'b@example.com'], subject: 's', body: 'b' }).expect(429);
    expect((await consumption(project)).categories.transactional).toMatchObject({ used: 3, limit: 4, remaining: 1 });

    // Another category is not touched.
    expect((await consumption(project)).categories.campaigns).toEqual({ used: 0, limit: null, remaining: null, share: null, warning: false, reached: false });

    // A mail that ends FAILED (or CANCELLED) is not counted.
    const db = t.app.get(Database);
    const [mail] = await db.rows<{ id: string }>(`SELECT id FROM ${db.table('emails')} WHERE project_id = $1 ORDER BY created_at LIMIT 1`, [project.id]);
    await db.affected(`UPDATE ${db.table('emails')} SET status = 'FAILED' WHERE id = $1`, [mail.id]);
    await db.affected(`UPDATE ${db.table('emails')} SET status = 'FAILED' WHERE id = $1`, [mail.id]); // once only
    expect((await consumption(project)).categories.transactional).toMatchObject({ used: 2, remaining: 2 });
    await t.http.post('/v1/send').set(bearer(project.secretKey)).send({ to: ['a@example.com', 'b@example.com'], subject: 's', body: 'b' }).expect(200);
    expect((await consumption(project)).categories.transactional).toMatchObject({ used: 4, remaining: 0, reached: true });
  });

  it('counts no SUPPRESSED mail', async () => {
    const { project } = await newProject(t);
    await setLimits(project, { transactional: 1 }).expect(200);
    await t.http.post('/suppressions').set(bearer(project.secretKey)).send({ email: 'gone@example.com' }).expect(201);
    const res = await send(project, 'gone@example.com').expect(200);
    expect(res.body.data.emails[0].status).toBe('SUPPRESSED');
    expect((await consumption(project)).categories.transactional.used).toBe(0);
    await send(project).expect(200);
    expect((await consumption(project)).categories.transactional.used).toBe(1);
  });

  it('is exact under concurrency: parallel sends racing for the last units, exactly as many win', async () => {
    const { project } = await newProject(t);
    await setLimits(project, { transactional: 5 }).expect(200);
    await send(project).expect(200);
    await send(project).expect(200);
    await send(project).expect(200);
    await send(project).expect(200);
    // one unit left, two sends race for it: one wins
    const pair = await Promise.all([send(project, 'x@example.com'), send(project, 'y@example.com')]);
    expect(pair.map((r) => r.status).sort()).toEqual([200, 429]);

    await setLimits(project, { transactional: 17 }).expect(200);
    const burst = await Promise.all(Array.from({ length: 30 }, (_, i) => send(project, `burst${i}@example.com`)));
    expect(burst.filter((r) => r.status === 200)).toHaveLength(12);
    expect(burst.filter((r) => r.status === 429)).toHaveLength(18);
    const db = t.app.get(Database);
    const [{ n }] = await db.rows<{ n: number }>(`SELECT count(*)::int AS n FROM ${db.table('emails')} WHERE project_id = $1`, [project.id]);
    expect(n).toBe(17);
    expect((await consumption(project)).categories.transactional).toMatchObject({ used: 17, remaining: 0, reached: true, share: 1 });
  });

  it('flags 80 % of a cap as a warning', async () => {
    const { project } = await newProject(t);
    await setLimits(project, { transactional: 5 }).expect(200);
    for (let i = 0; i < 3; i++) await send(project).expect(200);
    let c = await consumption(project);
    expect(c.warning).toBe(false);
    expect(c.categories.transactional).toEqual({ used: 3, limit: 5, remaining: 2, share: 0.6, warning: false, reached: false });
    await send(project).expect(200);
    c = await consumption(project);
    expect(c.warning).toBe(true);
    expect(c.categories.transactional).toEqual({ used: 4, limit: 5, remaining: 1, share: 0.8, warning: true, reached: false });
    const now = new Date();
    expect(c).toMatchObject({
      month: now.toISOString().slice(0, 7),
      periodStart: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
      resetsAt: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
      plan: 'free',
    });
  });

  it('fails a workflow mail over the cap with a recognisable error from MailQueue', async () => {
    const { project } = await newProject(t);
    await setLimits(project, { workflows: 1 }).expect(200);
    const queue = t.app.get(MailQueue);
    const mail = {
      projectId: project.id, contactId: null, kind: 'MARKETING' as const, source: 'WORKFLOW' as const, to: 'flow@example.com', from: 'no-reply@email.localhost',
      fromName: null, replyTo: null, subject: 'Step', html: '<p>hi</p>', headers: {}, attachments: [], data: null,
    };
    await expect(queue.enqueue(mail)).resolves.toMatchObject({ source: 'WORKFLOW' });
    const err = await queue.enqueue(mail).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BillingLimitReachedError);
    expect(err).toMatchObject({ code: 'BILLING_LIMIT_REACHED', category: 'workflows', limit: 1, used: 1 });
    expect((await consumption(project)).categories.workflows).toMatchObject({ used: 1, reached: true });
    expect((await consumption(project)).categories.transactional.used).toBe(0);
  });

  it('refuses up front a campaign larger than what is left of the campaigns cap; one that fits is sent whole and counted', async () => {
    const { project } = await newProject(t);
    await verifiedDomain(t, dns, project, 'send.billing.test');
    for (const email of ['c1@example.com', 'c2@example.com', 'c3@example.com']) await t.http.post('/contacts').set(bearer(project.secretKey)).send({ email, subscribed: true }).expect(201);
    await setLimits(project, { campaigns: 2 }).expect(200);
    const campaign = (await t.http.post('/campaigns').set(bearer(project.secretKey)).send({ name: 'News', subject: 'Hi', body: '<p>Hi</p><a href="{{unsubscribeUrl}}">unsubscribe</a>', from: 'news@send.billing.test', audienceType: 'ALL' }).expect(201)).body;
    const refused = await t.http.post(`/campaigns/${campaign.id}/send`).set(bearer(project.secretKey)).send({}).expect(429);
    expect(refused.body.error).toMatchObject({ code: 'BILLING_LIMIT_REACHED', errors: [{ field: 'campaigns' }] });
    expect((await t.http.get(`/campaigns/${campaign.id}`).set(bearer(project.secretKey)).expect(200)).body.status).toBe('DRAFT');
    expect((await consumption(project)).categories.campaigns.used).toBe(0);

    await setLimits(project, { campaigns: 3 }).expect(200);
    await t.http.post(`/campaigns/${campaign.id}/send`).set(bearer(project.secretKey)).send({}).expect(200);
    await eventually(async () => (await t.http.get(`/campaigns/${campaign.id}`).set(bearer(project.secretKey)).expect(200)).body.status === 'SENT', 'the campaign to be SENT', 800);
    expect((await consumption(project)).categories.campaigns).toMatchObject({ used: 3, limit: 3, reached: true });
  });

  it('counts inbound mail stored; over the inbound cap a message is accepted but not stored', async () => {
    const { project } = await newProject(t);
    await setLimits(project, { inbound: 2 }).expect(200);
    const store = t.app.get(StoreInboundMessage);
    const envelope = { mailFrom: 'sender@example.net', rcptTo: ['support@brand.test'], remoteAddress: '127.0.0.1', heloName: 'mx.example.net' };
    const message = (n: number) => Buffer.from(`From: Sender <sender@example.net>\r\nTo: support@brand.test\r\nSubject: Hello ${n}\r\nMessage-ID: <m${n}.${project.id}@example.net>\r\n\r\nBody ${n}\r\n`);
    expect(await store.execute(message(1), envelope, [project.id])).toHaveLength(1);
    expect(await store.execute(message(1), envelope, [project.id])).toEqual([]); // the same message again: stored once, counted once
    expect(await store.execute(message(2), envelope, [project.id])).toHaveLength(1);
    expect(await store.execute(message(3), envelope, [project.id])).toEqual([]);
    const inbound = (await t.http.get('/inbound').set(bearer(project.secretKey)).expect(200)).body;
    expect(inbound.data.map((m: { subject: string }) => m.subject).sort()).toEqual(['Hello 1', 'Hello 2']);
    expect((await consumption(project)).categories.inbound).toMatchObject({ used: 2, limit: 2, reached: true });
  });

  it('answers 503 BILLING_DISABLED on the provider routes while Stripe is not configured; GET /config says billing: false', async () => {
    const { account, project } = await newProject(t);
    for (const req of [
      t.http.post(`/users/@me/projects/${project.id}/checkout`).set('Cookie', account.cookie).send({}),
      t.http.post(`/users/@me/projects/${project.id}/billing-portal`).set('Cookie', account.cookie).send({}),
      t.http.get(`/users/@me/projects/${project.id}/billing-invoices`).set('Cookie', account.cookie),
      t.http.post('/webhooks/incoming/stripe').set('Stripe-Signature', 't=1,v1=00').send({ id: 'evt_1', type: 'invoice.paid' }),
    ]) {
      const res = await req.expect(503);
      expect(res.body.error.code).toBe('BILLING_DISABLED');
    }
    expect((await t.http.get('/config').expect(200)).body.billing).toBe(false);
  });
});
