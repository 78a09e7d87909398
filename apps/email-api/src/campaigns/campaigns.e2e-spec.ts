import { Database } from '@platform/database';
import { startFakeDnsServer, startFakeSmtpSink, type FakeDnsServer, type FakeSmtpSink } from '@platform/testing';
import { bearer, eventually, newProject, startEmailApi, type EmailTestApp, type TestProject } from '../../test/helpers';
import { verifyDkim } from '../../test/dkim';
import { testRabbit, verifiedDomain } from '../../test/marketing';
import type { TestRabbit } from '@platform/testing';

describe('campaigns (e2e)', () => {
  let t: EmailTestApp;
  let dns: FakeDnsServer;
  let smtp: FakeSmtpSink;
  let project: TestProject;
  let db: Database;
  let dkimKey: string;
  let rabbit: TestRabbit | undefined;
  const sk = () => bearer(project.secretKey);
  const body = (extra: Record<string, unknown> = {}) => ({
    name: 'Spring news',
    subject: 'Hello {{name ?? "friend"}}',
    body: '<p>Hi {{email}}, plan {{data.plan ?? "none"}}</p><a href="{{unsubscribeUrl}}">unsubscribe</a>',
    from: 'news@send.acme.test',
    audienceType: 'ALL',
    ...extra,
  });
  const status = async (id: string) => (await t.http.get(`/campaigns/${id}`).set(sk()).expect(200)).body.status as string;
  const until = (id: string, wanted: string) => eventually(async () => (await status(id)) === wanted, `campaign ${id} to be ${wanted}`, 800);
  /** Holds the project's send clock an hour ahead: mails queued now wait (the throttle), so a campaign stays SENDING. */
  const holdClock = () => db.affected(`INSERT INTO ${db.table('send_clock')} (project_id, next_slot) VALUES ($1, now() + interval '1 hour') ON CONFLICT (project_id) DO UPDATE SET next_slot = now() + interval '1 hour'`, [project.id]);
  const releaseClock = async (campaignId: string) => {
    await db.affected(`DELETE FROM ${db.table('send_clock')} WHERE project_id = $1`, [project.id]);
    await db.affected(`UPDATE ${db.table('emails')} SET next_attempt_at = now() WHERE campaign_id = $1 AND status = 'QUEUED'`, [campaignId]);
  };

  beforeAll(async () => {
    dns = await startFakeDnsServer();
    smtp = await startFakeSmtpSink();
    const broker = await testRabbit();
    rabbit = broker.rabbit;
    t = await startEmailApi({ ...broker.env, DNS_SERVERS: dns.address, SMTP_URL: smtp.url, EMAIL_SEND_RATE: '500', PUBLIC_BASE_URL: 'https://mail.example.test/email' });
    db = t.app.get(Database);
    ({ project } = await newProject(t, 'Campaigns'));
    const domain = await verifiedDomain(t, dns, project, 'send.acme.test');
    dkimKey = /p=([^;]+)$/.exec(domain.records.find((r) => r.purpose === 'DKIM')!.value)![1];
    for (let i = 0; i < 5; i++) await t.http.post('/contacts').set(sk()).send({ email: `reader${i}@example.com`, subscribed: true, data: { plan: i % 2 ? 'pro' : 'free', name: `Reader ${i}` } }).expect(201);
    await t.http.post('/contacts').set(sk()).send({ email: 'gone@example.com', subscribed: false }).expect(201);
    await smtp.waitForMessages(1).catch(() => undefined);
  });
  afterAll(async () => {
    await t?.close();
    await dns?.close();
    await smtp?.close();
    await rabbit?.cleanup();
  });
  beforeEach(() => smtp.reset());

  it('created in DRAFT only with `from` on a verified domain; the audience fields must fit the audience type', async () => {
    const bad = await t.http.post('/campaigns').set(sk()).send(body({ from: 'news@elsewhere.test' })).expect(422);
    expect(bad.body.error.errors).toEqual([expect.objectContaining({ field: 'from', code: 'domain_not_verified' })]);
    await t.http.post('/campaigns').set(sk()).send(body({ audienceType: 'SEGMENT' })).expect(422);
    await t.http.post('/campaigns').set(sk()).send(body({ audienceType: 'FILTERED' })).expect(422);
    await t.http.post('/campaigns').set(sk()).send(body({ audienceType: 'ALL', segmentId: '00000000-0000-0000-0000-000000000000' })).expect(422);
    await t.http.post('/campaigns').set(sk()).send(body({ audienceType: 'FILTERED', audienceCondition: { logic: 'AND', groups: [{ filters: [{ field: 'x', operator: 'equals', value: 1 }] }] } })).expect(400);
    const res = await t.http.post('/campaigns').set(sk()).send(body()).expect(201);
    expect(res.body).toMatchObject({ id: expect.any(String), status: 'DRAFT', audienceType: 'ALL', segmentId: null, audienceCondition: null, from: 'news@send.acme.test', createdAt: expect.any(String), updatedAt: expect.any(String) });
    const list = await t.http.get('/campaigns?pageSize=1').set(sk()).expect(200);
    expect(list.body).toMatchObject({ page: 1, pageSize: 1, total: expect.any(Number), totalPages: expect.any(Number) });
  });

  it('DRAFT → SENDING → SENT: one mail per subscribed contact, personalised, DKIM-signed, with RFC 8058 headers; stats count them', async () => {
    const created = await t.http.post('/campaigns').set(sk()).send(body()).expect(201);
    const sent = await t.http.post(`/campaigns/${created.body.id}/send`).set(sk()).send({}).expect(200);
    expect(sent.body.status).toBe('SENDING');
    await until(created.body.id, 'SENT');
    const messages = await smtp.waitForMessages(5);
    expect(messages).toHaveLength(5);
    expect(messages.map((m) => m.to[0]).sort()).toEqual([0, 1, 2, 3, 4].map((i) => `reader${i}@example.com`));
    const one = messages.find((m) => m.to[0] === 'reader1@example.com')!;
    expect(one.subject).toBe('Hello Reader 1');
    expect(one.headers['list-unsubscribe']).toMatch(/^<https:\/\/mail\.example\.test\/email\/unsubscribe\/cnt_[0-9a-z]{20}\.[\w-]+>$/);
    expect(one.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    expect(one.headers['precedence']).toBe('bulk');
    // RFC 8058 §4: the signature covers both one-click headers
    expect(verifyDkim(one.raw, dkimKey).h.toLowerCase().split(':')).toEqual(expect.arrayContaining(['from', 'list-unsubscribe', 'list-unsubscribe-post']));
    const stats = await t.http.get(`/campaigns/${created.body.id}/stats`).set(sk()).expect(200);
    expect(stats.body).toEqual({
      status: 'SENT',
      recipients: 5,
      queued: 0,
      sent: 5,
      delivered: 5,
      opened: 0,
      clicked: 0,
      bounced: 0,
      complained: 0,
      unsubscribed: 0,
      failed: 0,
      cancelled: 0,
      opens: { total: 0, unique: 0, human: 0, humanUnique: 0, privacyProxy: 0 },
      clicks: { total: 0, unique: 0, human: 0, humanUnique: 0, scanner: 0 },
      openRate: 0,
      clickRate: 0,
      clicksPerOpen: 0,
      abTest: null,
    });
    // one recipient unsubscribes through the one-click link of the mail
    const link = /<([^>]+)>/.exec(one.headers['list-unsubscribe'])![1].replace('https://mail.example.test/email', '');
    await t.http.post(link).send('List-Unsubscribe=One-Click').expect(200);
    expect((await t.http.get(`/campaigns/${created.body.id}/stats`).set(sk()).expect(200)).body.unsubscribed).toBe(1);
    await t.http.post('/contacts').set(sk()).send({ email: 'reader1@example.com', subscribed: true }).expect(200);
    // a sent campaign is no DRAFT any more
    await t.http.put(`/campaigns/${created.body.id}`).set(sk()).send(body()).expect(409);
    await t.http.post(`/campaigns/${created.body.id}/send`).set(sk()).send({}).expect(409);
    await t.http.post(`/campaigns/${created.body.id}/cancel`).set(sk()).expect(409);
    // duplicate: a new DRAFT
    const copy = await t.http.post(`/campaigns/${created.body.id}/duplicate`).set(sk()).expect(201);
    expect(copy.body).toMatchObject({ status: 'DRAFT', name: 'Spring news (copy)', subject: created.body.subject });
    expect(copy.body.id).not.toBe(created.body.id);
    await t.http.delete(`/campaigns/${created.body.id}`).set(sk()).expect(204);
  });

  it('PUT replaces a DRAFT; a future scheduledFor gives SCHEDULED, sent by the scheduler at its time', async () => {
    const created = await t.http.post('/campaigns').set(sk()).send(body()).expect(201);
    const replaced = await t.http.put(`/campaigns/${created.body.id}`).set(sk()).send(body({ name: 'Pro only', audienceType: 'FILTERED', audienceCondition: { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] } })).expect(200);
    expect(replaced.body).toMatchObject({ name: 'Pro only', audienceType: 'FILTERED', status: 'DRAFT' });
    const when = new Date(Date.now() + 1500).toISOString();
    const scheduled = await t.http.post(`/campaigns/${created.body.id}/send`).set(sk()).send({ scheduledFor: when }).expect(200);
    expect(scheduled.body).toMatchObject({ status: 'SCHEDULED', scheduledFor: when });
    expect(smtp.messages).toHaveLength(0);
    await until(created.body.id, 'SENT');
    const messages = await smtp.waitForMessages(2);
    expect(messages.map((m) => m.to[0]).sort()).toEqual(['reader1@example.com', 'reader3@example.com']);
    await t.http.post(`/campaigns/${created.body.id}/send`).set(sk()).send({ scheduledFor: 'tomorrow' }).expect(422);
  });

  it('SCHEDULED → CANCELLED: nothing is sent', async () => {
    const created = await t.http.post('/campaigns').set(sk()).send(body()).expect(201);
    await t.http.post(`/campaigns/${created.body.id}/send`).set(sk()).send({ scheduledFor: new Date(Date.now() + 3_600_000).toISOString() }).expect(200);
    const cancelled = await t.http.post(`/campaigns/${created.body.id}/cancel`).set(sk()).expect(200);
    expect(cancelled.body).toMatchObject({ status: 'CANCELLED', cancelledAt: expect.any(String) });
    await t.http.post(`/campaigns/${created.body.id}/cancel`).set(sk()).expect(409);
    expect((await t.http.get(`/campaigns/${created.body.id}/stats`).set(sk()).expect(200)).body.recipients).toBe(0);
  });

  it('SENDING → CANCELLED: mails not yet handed to SMTP are never sent; DELETE answers 409 while SENDING', async () => {
    await holdClock();
    const created = await t.http.post('/campaigns').set(sk()).send(body()).expect(201);
    await t.http.post(`/campaigns/${created.body.id}/send`).set(sk()).send({}).expect(200);
    await eventually(async () => (await t.http.get(`/campaigns/${created.body.id}/stats`).set(sk())).body.queued === 5, 'the fan-out to write 5 queued mails');
    const del = await t.http.delete(`/campaigns/${created.body.id}`).set(sk()).expect(409);
    expect(del.body.error.code).toBe('CAMPAIGN_SENDING');
    const cancelled = await t.http.post(`/campaigns/${created.body.id}/cancel`).set(sk()).expect(200);
    expect(cancelled.body.status).toBe('CANCELLED');
    await releaseClock(created.body.id);
    const stats = await t.http.get(`/campaigns/${created.body.id}/stats`).set(sk()).expect(200);
    expect(stats.body).toMatchObject({ status: 'CANCELLED', recipients: 5, sent: 0, failed: 0, cancelled: 5, bounced: 0, queued: 0 });
    // a cancelled campaign's recipients are not counted as bounced
    const bounced = await t.http.post('/segments').set(sk()).send({ name: `bounced ${created.body.id}`, type: 'DYNAMIC', condition: { logic: 'AND', groups: [{ filters: [{ field: 'email.bounced', operator: 'triggered' }] }] } }).expect(201);
    expect(bounced.body.memberCount).toBe(0);
    await t.http.delete(`/segments/${bounced.body.id}`).set(sk()).expect(204);
    // the send worker finds nothing to send
    await t.http.post('/v1/send').set(sk()).send({ to: 'probe@example.com', subject: 'probe', body: 'b' }).expect(200);
    await smtp.waitForMessages(1);
    expect(smtp.messages.map((m) => m.to[0])).toEqual(['probe@example.com']);
    await t.http.delete(`/campaigns/${created.body.id}`).set(sk()).expect(204);
  });

  it('the throttle spaces a campaign\'s mails 1/EMAIL_SEND_RATE apart on the project\'s clock', async () => {
    await holdClock();
    const created = await t.http.post('/campaigns').set(sk()).send(body()).expect(201);
    await t.http.post(`/campaigns/${created.body.id}/send`).set(sk()).send({}).expect(200);
    await eventually(async () => (await t.http.get(`/campaigns/${created.body.id}/stats`).set(sk())).body.queued === 5, 'the fan-out');
    const slots = await db.rows<{ at: Date }>(`SELECT next_attempt_at AS at FROM ${db.table('emails')} WHERE campaign_id = $1 ORDER BY next_attempt_at`, [created.body.id]);
    const gaps = slots.slice(1).map((s, i) => s.at.getTime() - slots[i].at.getTime());
    expect(gaps).toEqual([2, 2, 2, 2]); // 500 mails per second
    expect(slots[0].at.getTime()).toBeGreaterThan(Date.now() + 30 * 60_000); // after the mails already on the clock
    // SENDING → SENT also when the audience shrank after the fan-out; a contact who unsubscribed meanwhile gets nothing
    await db.affected(`DELETE FROM ${db.table('contacts')} WHERE project_id = $1 AND email = 'reader4@example.com'`, [project.id]);
    await t.http.post('/contacts').set(sk()).send({ email: 'reader0@example.com', subscribed: false }).expect(200);
    await releaseClock(created.body.id);
    await until(created.body.id, 'SENT');
    expect(smtp.messages.filter((m) => m.headers['x-campaign-id'] === created.body.id).map((m) => m.to[0]).sort()).toEqual(['reader1@example.com', 'reader2@example.com', 'reader3@example.com', 'reader4@example.com']);
    expect((await t.http.get(`/campaigns/${created.body.id}/stats`).set(sk()).expect(200)).body).toMatchObject({ recipients: 5, sent: 4, queued: 0 });
    await t.http.post('/contacts').set(sk()).send({ email: 'reader0@example.com', subscribed: true }).expect(200);
    await t.http.post('/contacts').set(sk()).send({ email: 'reader4@example.com', subscribed: true, data: { plan: 'free', name: 'Reader 4' } }).expect(201);
  });

  it('400 NO_RECIPIENTS without a subscribed recipient; the 409 rules of segments and templates', async () => {
    const segment = await t.http.post('/segments').set(sk()).send({ name: 'Empty', type: 'STATIC' }).expect(201);
    const created = await t.http.post('/campaigns').set(sk()).send(body({ audienceType: 'SEGMENT', segmentId: segment.body.id })).expect(201);
    const none = await t.http.post(`/campaigns/${created.body.id}/send`).set(sk()).send({}).expect(400);
    expect(none.body.error.code).toBe('NO_RECIPIENTS');
    expect(await status(created.body.id)).toBe('DRAFT');
    await t.http.post(`/segments/${segment.body.id}/members`).set(sk()).send({ emails: ['gone@example.com'] }).expect(200);
    await t.http.post(`/campaigns/${created.body.id}/send`).set(sk()).send({}).expect(400); // unsubscribed only
    const inUse = await t.http.delete(`/segments/${segment.body.id}`).set(sk()).expect(409);
    expect(inUse.body.error.code).toBe('SEGMENT_IN_USE');
    await t.http.delete(`/campaigns/${created.body.id}`).set(sk()).expect(204);
    await t.http.delete(`/segments/${segment.body.id}`).set(sk()).expect(204);

    const template = await t.http.post('/templates').set(sk()).send({ name: 'Base', subject: 'From template', body: '<p>{{email}}</p>', from: 'tpl@send.acme.test' }).expect(201);
    const fromTemplate = await t.http.post('/campaigns').set(sk()).send({ name: 'T', templateId: template.body.id, audienceType: 'ALL' }).expect(201);
    expect(fromTemplate.body).toMatchObject({ subject: 'From template', from: 'tpl@send.acme.test', templateId: template.body.id });
    expect((await t.http.get(`/templates/${template.body.id}/usage`).set(sk()).expect(200)).body).toEqual({ campaigns: [{ id: fromTemplate.body.id, name: 'T', status: 'DRAFT' }], workflows: [] });
    expect((await t.http.delete(`/templates/${template.body.id}`).set(sk()).expect(409)).body.error.code).toBe('TEMPLATE_IN_USE');
    const domains = await t.http.get(`/domains/project/${project.id}`).set(sk()).expect(200);
    await t.http.delete(`/domains/${domains.body[0].id}`).set(sk()).expect(409);
    await t.http.delete(`/campaigns/${fromTemplate.body.id}`).set(sk()).expect(204);
    await t.http.delete(`/templates/${template.body.id}`).set(sk()).expect(204);
  });

  it('templates: CRUD, duplicate with a new id, `from` only on a verified domain', async () => {
    await t.http.post('/templates').set(sk()).send({ name: 'x', subject: 's', body: 'b', from: 'a@unverified.test' }).expect(422);
    const created = await t.http.post('/templates').set(sk()).send({ name: 'Welcome', subject: 'Hi', body: '<p>hi</p>', from: 'Hello@Send.Acme.test' }).expect(201);
    expect(created.body).toMatchObject({ name: 'Welcome', from: 'hello@send.acme.test' });
    const patched = await t.http.patch(`/templates/${created.body.id}`).set(sk()).send({ subject: 'Hi again' }).expect(200);
    expect(patched.body.subject).toBe('Hi again');
    await t.http.patch(`/templates/${created.body.id}`).set(sk()).send({ from: 'a@unverified.test' }).expect(422);
    const copy = await t.http.post(`/templates/${created.body.id}/duplicate`).set(sk()).expect(201);
    expect(copy.body.id).not.toBe(created.body.id);
    expect(copy.body).toMatchObject({ name: 'Welcome (copy)', subject: 'Hi again' });
    expect((await t.http.get('/templates').set(sk()).expect(200)).body.map((x: { id: string }) => x.id)).toEqual(expect.arrayContaining([created.body.id, copy.body.id]));
    expect((await t.http.get(`/templates/${created.body.id}/usage`).set(sk()).expect(200)).body).toEqual({ campaigns: [], workflows: [] });
    await t.http.delete(`/templates/${copy.body.id}`).set(sk()).expect(204);
    await t.http.get(`/templates/${copy.body.id}`).set(sk()).expect(404);
    const other = await newProject(t, 'Other templates');
    await t.http.get(`/templates/${created.body.id}`).set(bearer(other.project.secretKey)).expect(404);
    await t.http.post('/v1/send').set(bearer(other.project.secretKey)).send({ to: 'x@example.com', template: created.body.id }).expect(404);
    await t.http.get('/templates').set(bearer(project.publicKey)).expect(401);
  });

  it('POST /campaigns/:id/test sends the campaign to one address', async () => {
    const created = await t.http.post('/campaigns').set(sk()).send(body()).expect(201);
    const res = await t.http.post(`/campaigns/${created.body.id}/test`).set(sk()).send({ email: 'me@example.com' }).expect(200);
    expect(res.body).toMatchObject({ email: 'me@example.com', emailId: expect.stringMatching(/^eml_/), status: 'QUEUED' });
    const message = await eventually(async () => smtp.messages.find((m) => m.to[0] === 'me@example.com'), 'the test mail');
    expect(message.subject).toBe('[Test] Hello friend');
    // its one-click unsubscribe link names a real contact (recorded for the address) and works
    const link = /<([^>]+)>/.exec(String(message.headers['list-unsubscribe']))![1];
    await t.http.post(new URL(link).pathname.replace(/^\/email/, '')).type('form').send('List-Unsubscribe=One-Click').expect(200);
    expect(await status(created.body.id)).toBe('DRAFT');
    await t.http.post(`/campaigns/${created.body.id}/test`).set(sk()).send({ email: 'nope' }).expect(422);
    const other = await newProject(t, 'Other campaigns');
    await t.http.get(`/campaigns/${created.body.id}`).set(bearer(other.project.secretKey)).expect(404);
    await t.http.post(`/campaigns/${created.body.id}/send`).set(bearer(other.project.secretKey)).send({}).expect(404);
    await t.http.get('/campaigns/nope').set(sk()).expect(404);
  });
});
