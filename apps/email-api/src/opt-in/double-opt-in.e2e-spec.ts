import { Database } from '@platform/database';
import { startFakeDnsServer, startFakeSmtpSink, type FakeDnsServer, type FakeSmtpSink, type TestRabbit } from '@platform/testing';
import { bearer, decodeQuotedPrintable, eventually, newProject, startEmailApi, type EmailTestApp, type TestProject } from '../../test/helpers';
import { testRabbit, verifiedDomain } from '../../test/marketing';
import { UnsubscribeLinks } from '../emails/unsubscribe-links';
import { JobsWorker } from '../jobs/jobs.worker';
import { ConfirmationWorker } from './confirmation.worker';
import { OptInLinks } from './opt-in-links';

const BASE = 'https://mail.example.test/email';

describe('double opt-in (e2e)', () => {
  let t: EmailTestApp;
  let dns: FakeDnsServer;
  let smtp: FakeSmtpSink;
  let rabbit: TestRabbit | undefined;
  let db: Database;
  let project: TestProject;
  let cookie: string;
  let templateId: string;
  const sk = () => bearer(project.secretKey);
  const pk = () => bearer(project.publicKey);
  let n = 0;
  const address = (name: string) => `${name}.${++n}@example.com`;

  /** Queues every due confirmation mail now (the worker also runs on its own). */
  const drain = () => t.app.get(ConfirmationWorker).drain();
  /** Confirmation mails queued for the address (any status). */
  const confirmations = async (email: string) => {
    await drain();
    const rows = await db.rows<{ n: number }>(`SELECT count(*)::int AS n FROM ${db.table('emails')} WHERE project_id = $1 AND to_email = $2 AND source = 'SYSTEM'`, [project.id, email]);
    return rows[0].n;
  };
  const contact = async (email: string) => {
    const res = await t.http.post('/contacts/lookup').set(sk()).send({ emails: [email] }).expect(200);
    return (await t.http.get(`/contacts/${res.body.found[0].id}`).set(sk()).expect(200)).body;
  };
  /** The path of the newest confirmation link the SMTP sink received for the address. */
  const linkFor = async (email: string, count = 1) => {
    const mails = await eventually(async () => {
      const found = smtp.messages.filter((m) => m.to[0] === email);
      return found.length >= count ? found : null;
    }, `${count} confirmation mail(s) to ${email}`);
    const html = decodeQuotedPrintable(mails[mails.length - 1].raw);
    const url = new RegExp(`${BASE.replace(/\./g, '\\.')}(/confirm/cnt_[0-9a-z]+\\.[0-9a-z]+\\.[A-Za-z0-9_-]{22})`).exec(html);
    if (!url) throw new Error(`no confirmation link in the mail to ${email}: ${html}`);
    return { path: url[1], mail: mails[mails.length - 1], html };
  };
  const track = (email: string, extra: Record<string, unknown> = {}) => t.http.post('/v1/track').set(pk()).send({ email, event: 'signup', ...extra }).expect(200);

  beforeAll(async () => {
    dns = await startFakeDnsServer();
    smtp = await startFakeSmtpSink();
    const broker = await testRabbit();
    rabbit = broker.rabbit;
    t = await startEmailApi({ ...broker.env, DNS_SERVERS: dns.address, SMTP_URL: smtp.url, EMAIL_SEND_RATE: '500', PUBLIC_BASE_URL: BASE });
    db = t.app.get(Database);
    const created = await newProject(t, 'Double opt-in');
    project = created.project;
    cookie = created.account.cookie;
    await verifiedDomain(t, dns, project, 'news.acme.test');
    const template = await t.http
      .post('/templates')
      .set(sk())
      .send({ name: 'Confirm', subject: 'Confirm your subscription, {{name ?? "friend"}}', body: '<p>One click: <a href="{{confirmUrl}}">confirm</a></p>', from: 'hello@news.acme.test' })
      .expect(201);
    templateId = template.body.id;
  });
  afterAll(async () => {
    await t?.close();
    await dns?.close();
    await smtp?.close();
    await rabbit?.cleanup();
  });

  it('the project setting: a template on a verified domain is required to turn it on', async () => {
    const patch = (doubleOptIn: unknown) => t.http.patch(`/users/@me/projects/${project.id}`).set(sk()).send({ doubleOptIn });
    const missing = await patch({ enabled: true }).expect(422);
    expect(missing.body.error.errors).toEqual([expect.objectContaining({ field: 'doubleOptIn.templateId', code: 'required' })]);
    const unknown = await patch({ enabled: true, templateId: '00000000-0000-4000-8000-000000000000' }).expect(422);
    expect(unknown.body.error.errors).toEqual([expect.objectContaining({ field: 'doubleOptIn.templateId', code: 'not_found' })]);
    await patch({ enabled: 'yes' }).expect(422);
    await patch({ templateId: 'nope' }).expect(422);
    // still off: a contact created now is subscribed at once
    const before = await t.http.post('/contacts').set(sk()).send({ email: address('early') }).expect(201);
    expect(before.body).toMatchObject({ subscribed: true, optIn: null, confirmedAt: null });
    const on = await patch({ enabled: true, templateId }).expect(200);
    expect(on.body.doubleOptIn).toEqual({ enabled: true, templateId });
    const list = await t.http.get('/users/@me/projects').set('Cookie', cookie).expect(200);
    expect(list.body.find((p: { id: string }) => p.id === project.id).doubleOptIn).toEqual({ enabled: true, templateId });
    // the confirmation template cannot go while double opt-in sends it
    const refused = await t.http.delete(`/templates/${templateId}`).set(sk()).expect(409);
    expect(refused.body.error).toMatchObject({ code: 'TEMPLATE_IN_USE', message: "The template is the project's double opt-in confirmation mail" });
    await t.http.get(`/templates/${templateId}`).set(sk()).expect(200);
  });

  it('a signup through POST /v1/track is pending with one mail; GET shows a button, POST confirms; a re-signup sends nothing and keeps it confirmed', async () => {
    const email = address('track');
    await track(email, { data: { name: 'Ada' } });
    expect(await contact(email)).toMatchObject({ subscribed: false, optIn: 'pending', confirmedAt: null });
    expect(await confirmations(email)).toBe(1);
    const { path, mail } = await linkFor(email);
    expect(mail.subject).toBe('Confirm your subscription, Ada');
    expect(mail.headers['from']).toContain('hello@news.acme.test');

    const page = await t.http.get(path).expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.text).toContain('<form method="post">');
    expect(page.text).not.toMatch(/<script|src=/i);
    // the GET (a scanner's prefetch) confirmed nothing
    expect((await contact(email)).optIn).toBe('pending');

    const done = await t.http.post(path).type('form').send({}).expect(200);
    expect(done.text).toContain('Subscription confirmed');
    const confirmed = await contact(email);
    expect(confirmed).toMatchObject({ subscribed: true, optIn: 'confirmed', confirmedAt: expect.any(String) });
    const events = await t.http.get(`/events/contact/${confirmed.id}`).set(sk()).expect(200);
    expect(events.body.data.map((e: { name: string }) => e.name)).toContain('contact.subscribed');

    // the link again, and re-signups by every route: no mail, still confirmed
    expect((await t.http.post(path).expect(200)).text).toContain('Already confirmed');
    expect((await t.http.get(path).expect(200)).text).toContain('Already confirmed');
    await track(email, { subscribed: true });
    await track(email);
    await t.http.post('/contacts').set(sk()).send({ email, subscribed: true }).expect(200);
    expect(await contact(email)).toMatchObject({ subscribed: true, optIn: 'confirmed' });
    expect(await confirmations(email)).toBe(1);
  });

  it('POST /contacts: pending with one mail, a repeated signup within the day sends none, the next day one more; `confirmed: true` skips the mail', async () => {
    const email = address('api');
    const created = await t.http.post('/contacts').set(sk()).send({ email, subscribed: true }).expect(201);
    expect(created.body).toMatchObject({ subscribed: false, optIn: 'pending', _meta: { isNew: true } });
    expect(await confirmations(email)).toBe(1);
    await t.http.post('/contacts').set(sk()).send({ email, subscribed: true }).expect(200);
    await track(email, { subscribed: true });
    expect(await confirmations(email)).toBe(1);
    // a day later (the last mail moved back 25 hours) the same signup sends a reminder
    await db.affected(`UPDATE ${db.table('contacts')} SET confirmation_sent_at = now() - interval '25 hours' WHERE id = $1`, [created.body.id]);
    await t.http.post('/contacts').set(sk()).send({ email, subscribed: true }).expect(200);
    expect(await confirmations(email)).toBe(2);
    expect((await contact(email)).optIn).toBe('pending');

    const attested = address('moved');
    const moved = await t.http.post('/contacts').set(sk()).send({ email: attested, confirmed: true }).expect(201);
    expect(moved.body).toMatchObject({ subscribed: true, optIn: 'confirmed', confirmedAt: expect.any(String) });
    expect(await confirmations(attested)).toBe(0);
    // on a pending contact it subscribes too
    const waiting = address('waiting');
    await t.http.post('/contacts').set(sk()).send({ email: waiting }).expect(201);
    expect(await t.http.post('/contacts').set(sk()).send({ email: waiting, confirmed: true }).expect(200)).toMatchObject({ body: { subscribed: true, optIn: 'confirmed' } });
    // subscribed: false is no signup
    const declined = await t.http.post('/contacts').set(sk()).send({ email: address('no'), subscribed: false }).expect(201);
    expect(declined.body).toMatchObject({ subscribed: false, optIn: null });
    expect(await confirmations(declined.body.email)).toBe(0);
  });

  it('unsubscribe, then sign up again: pending again and a new mail (at most one a day), confirmed by the new link', async () => {
    const email = address('back');
    await track(email);
    const first = await linkFor(email);
    await t.http.post(first.path).expect(200);
    const { id } = await contact(email);
    const unsubscribe = t.app.get(UnsubscribeLinks).token(id);
    await t.http.post(`/unsubscribe/${unsubscribe}`).send('List-Unsubscribe=One-Click').expect(200);
    expect(await contact(email)).toMatchObject({ subscribed: false, optIn: null, confirmedAt: expect.any(String) });
    const listed = async () => (await t.http.get(`/suppressions?search=${encodeURIComponent(email)}`).set(sk()).expect(200)).body.data.map((x: { reason: string }) => x.reason);
    expect(await listed()).toEqual(['unsubscribe']);
    // the old link no longer subscribes anybody
    expect((await t.http.get(first.path).expect(404)).text).toContain('not valid');

    // within the day of the first mail: pending, but no second mail yet
    await track(email, { subscribed: true });
    expect(await contact(email)).toMatchObject({ subscribed: false, optIn: 'pending' });
    expect(await confirmations(email)).toBe(1);
    await db.affected(`UPDATE ${db.table('contacts')} SET confirmation_sent_at = now() - interval '25 hours' WHERE id = $1`, [id]);
    await track(email, { subscribed: true });
    expect(await confirmations(email)).toBe(2);
    const second = await linkFor(email, 2);
    await t.http.post(second.path).expect(200);
    expect(await contact(email)).toMatchObject({ subscribed: true, optIn: 'confirmed' });
    // the unsubscribe suppression was lifted with the confirmation
    expect(await listed()).toEqual([]);
  });

  it('parallel signups of one address queue one mail', async () => {
    const email = address('race');
    await Promise.all(Array.from({ length: 8 }, (_, i) => t.http.post(i % 2 ? '/v1/track' : '/contacts').set(i % 2 ? pk() : sk()).send(i % 2 ? { email, event: 'signup', subscribed: true } : { email, subscribed: true })));
    expect(await confirmations(email)).toBe(1);
    expect((await contact(email)).optIn).toBe('pending');
  });

  it('forged, malformed and expired links are refused with a page, and confirm nothing', async () => {
    const email = address('forge');
    await track(email);
    const { path } = await linkFor(email);
    const forged = path.slice(0, -1) + (path.endsWith('A') ? 'B' : 'A');
    expect((await t.http.get(forged).expect(404)).text).toContain('This link is not valid');
    expect((await t.http.post(forged).expect(404)).headers['content-type']).toMatch(/^text\/html/);
    // a client asking for JSON gets the error envelope
    const json = await t.http.post(forged).set('Accept', 'application/json').expect(404);
    expect(json.body.error).toMatchObject({ code: 'INVALID_CONFIRMATION_LINK', statusCode: 404 });
    await t.http.post('/confirm/nonsense').expect(404);
    await t.http.get(`/confirm/${'x'.repeat(5000)}`).expect(404);
    const { id } = await contact(email);
    const expired = t.app.get(OptInLinks).url(project.id, id, new Date(Date.now() - 8 * 86_400_000)).replace(BASE, '');
    expect((await t.http.get(expired).expect(410)).text).toContain('expired');
    await t.http.post(expired).expect(410);
    expect((await t.http.get(expired).set('Accept', 'application/json').expect(410)).body.error.code).toBe('CONFIRMATION_LINK_EXPIRED');
    expect(await contact(email)).toMatchObject({ subscribed: false, optIn: 'pending' });
  });

  it('PATCH and bulk-subscribe cannot bypass the confirmation', async () => {
    const email = address('patch');
    const created = await t.http.post('/contacts').set(sk()).send({ email, subscribed: false }).expect(201);
    const patched = await t.http.patch(`/contacts/${created.body.id}`).set(sk()).send({ subscribed: true }).expect(200);
    expect(patched.body).toMatchObject({ subscribed: false, optIn: 'pending' });
    expect(await confirmations(email)).toBe(1);
    const other = await t.http.post('/contacts').set(sk()).send({ email: address('bulk'), subscribed: false }).expect(201);
    await t.http.post('/contacts/bulk-subscribe').set(sk()).send({ contactIds: [other.body.id] }).expect(202);
    await eventually(async () => {
      await t.app.get(JobsWorker).drain();
      return (await t.http.get(`/contacts/${other.body.id}`).set(sk()).expect(200)).body.optIn === 'pending';
    }, 'the bulk job');
    expect((await t.http.get(`/contacts/${other.body.id}`).set(sk()).expect(200)).body.subscribed).toBe(false);
    expect(await confirmations(other.body.email)).toBe(1);
  });

  it('imports a CSV as pending contacts with a mail each (a template without {{confirmUrl}} gets the link appended); a campaign to ALL skips them', async () => {
    const bare = await t.http.post('/templates').set(sk()).send({ name: 'Bare', subject: 'Please confirm', body: '<p>Welcome aboard</p>', from: 'hello@news.acme.test' }).expect(201);
    await t.http.patch(`/users/@me/projects/${project.id}`).set(sk()).send({ doubleOptIn: { templateId: bare.body.id } }).expect(200);
    const a = address('csv');
    const b = address('csv');
    const c = address('csv');
    const csv = `email,subscribed,city\n${a},,Paris\n${b},true,Rome\n${c},false,Oslo\n`;
    const queued = await t.http.post('/contacts/import').set(sk()).attach('file', Buffer.from(csv), { filename: 'c.csv', contentType: 'text/csv' }).expect(202);
    await eventually(async () => {
      await t.app.get(JobsWorker).drain();
      return (await t.http.get(`/contacts/import/${queued.body.jobId}`).set(sk()).expect(200)).body.state === 'completed';
    }, 'the import');
    expect(await contact(a)).toMatchObject({ subscribed: false, optIn: 'pending', data: { city: 'Paris' } });
    expect(await contact(b)).toMatchObject({ subscribed: false, optIn: 'pending' });
    expect(await contact(c)).toMatchObject({ subscribed: false, optIn: null });
    expect([await confirmations(a), await confirmations(b), await confirmations(c)]).toEqual([1, 1, 0]);
    const { html } = await linkFor(a);
    expect(html).toContain('Welcome aboard');
    expect(html).toContain('Confirm my subscription');

    const subscribed = (await db.rows<{ id: string }>(`SELECT id FROM ${db.table('contacts')} WHERE project_id = $1 AND subscribed`, [project.id])).map((r) => r.id).sort();
    const campaign = await t.http
      .post('/campaigns')
      .set(sk())
      .send({ name: 'News', subject: 'News', body: '<p>Hi</p><a href="{{unsubscribeUrl}}">unsubscribe</a>', from: 'hello@news.acme.test', audienceType: 'ALL' })
      .expect(201);
    await t.http.post(`/campaigns/${campaign.body.id}/send`).set(sk()).send({}).expect(200);
    await eventually(async () => (await t.http.get(`/campaigns/${campaign.body.id}`).set(sk()).expect(200)).body.status === 'SENT', 'the campaign', 800);
    const reached = (await db.rows<{ contact_id: string }>(`SELECT contact_id FROM ${db.table('emails')} WHERE campaign_id = $1`, [campaign.body.id])).map((r) => r.contact_id).sort();
    expect(reached).toEqual(subscribed);
    const pending = (await db.rows<{ id: string }>(`SELECT id FROM ${db.table('contacts')} WHERE project_id = $1 AND opt_in = 'pending' AND NOT subscribed`, [project.id])).map((r) => r.id);
    expect(pending.length).toBeGreaterThanOrEqual(3);
    expect(reached.filter((id) => pending.includes(id))).toEqual([]);
  });
});
