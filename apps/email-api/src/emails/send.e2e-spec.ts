import { startFakeSmtpSink, type FakeSmtpSink } from '@platform/testing';
import { Database } from '@platform/database';
import { SendWorker } from './send.worker';
import { bearer, decodeQuotedPrintable, eventually, newProject, startEmailApi, type EmailTestApp, type TestProject } from '../../test/helpers';

describe('POST /v1/send and unsubscribe (e2e)', () => {
  describe('with SMTP_URL', () => {
    let t: EmailTestApp;
    let smtp: FakeSmtpSink;
    let project: TestProject;
    const sk = () => bearer(project.secretKey);

    beforeAll(async () => {
      smtp = await startFakeSmtpSink({ auth: { user: 'mailer', pass: 's3cret' } });
      t = await startEmailApi({ SMTP_URL: smtp.url, PUBLIC_BASE_URL: 'https://mail.example.test/email', EMAIL_FROM: 'noreply@example.test' });
      ({ project } = await newProject(t, 'Sender'));
      // the owner's verification email
      await smtp.waitForMessages(1);
      smtp.reset();
    });
    afterAll(async () => {
      await t?.close();
      await smtp?.close();
    });
    beforeEach(() => smtp.reset());

    const activity = async (emailId: string) => {
      const res = await t.http.get('/activity?limit=100').set(sk()).expect(200);
      return res.body.data.find((a: { id: string }) => a.id === emailId);
    };

    it('queues one email per recipient and a worker sends it through SMTP_URL', async () => {
      const res = await t.http
        .post('/v1/send')
        .set(sk())
        .send({
          to: ['one@example.com', { name: 'Two Person', email: 'Two@Example.com' }],
          subject: 'Hello {{name ?? "friend"}}',
          body: '<p>Plan: {{data.plan}}, {{missing ?? "none"}}</p><p>{{html}}</p>',
          name: 'Acme',
          reply: 'support@example.test',
          data: { plan: 'pro', html: '<b>x</b>' },
          headers: { 'X-Campaign': 'spring' },
          attachments: [{ filename: 'hello.txt', content: Buffer.from('attached text').toString('base64'), contentType: 'text/plain' }],
        })
        .expect(200);
      expect(res.body.success).toBe(true);
      expect(res.body.data).toMatchObject({ delivery: 'queued', timestamp: expect.any(String) });
      expect(res.body.data.emails).toEqual([
        { contact: { id: expect.stringMatching(/^cnt_/), email: 'one@example.com' }, email: expect.stringMatching(/^eml_/), status: 'QUEUED' },
        { contact: { id: expect.stringMatching(/^cnt_/), email: 'two@example.com' }, email: expect.stringMatching(/^eml_/), status: 'QUEUED' },
      ]);
      const messages = await smtp.waitForMessages(2);
      const byRcpt = Object.fromEntries(messages.map((m) => [m.to[0], m]));
      expect(byRcpt['one@example.com'].subject).toBe('Hello friend');
      expect(byRcpt['two@example.com'].subject).toBe('Hello Two Person');
      const one = byRcpt['one@example.com'];
      expect(one.authUser).toBe('mailer');
      expect(one.from).toBe('noreply@example.test');
      expect(one.headers['from']).toBe('Acme <noreply@example.test>');
      expect(one.headers['reply-to']).toBe('support@example.test');
      expect(one.headers['x-campaign']).toBe('spring');
      expect(one.headers['list-unsubscribe']).toBeUndefined();
      const text = decodeQuotedPrintable(one.raw);
      expect(text).toContain('Plan: pro, none');
      expect(text).toContain('&lt;b&gt;x&lt;/b&gt;');
      expect(one.raw).toContain('filename=hello.txt');
      // contacts created by a send are not subscribed; the data was stored
      const contact = await t.http.get(`/contacts/${res.body.data.emails[0].contact.id}`).set(sk()).expect(200);
      expect(contact.body).toMatchObject({ subscribed: false, data: { plan: 'pro' } });
      const sent = await eventually(async () => {
        const item = await activity(res.body.data.emails[0].email);
        return item?.type === 'email.sent' ? item : undefined;
      }, 'the email to be marked sent');
      expect(sent.data).toMatchObject({ status: 'SENT', messageId: expect.any(String) });
      // the feed names the recipient by address, also when the send gave a display name
      expect(await activity(res.body.data.emails[1].email)).toMatchObject({ email: 'two@example.com', contactId: res.body.data.emails[1].contact.id });
    });

    it('marketing mail carries RFC 8058 one-click unsubscribe that works; unsubscribed contacts are suppressed', async () => {
      const created = await t.http.post('/contacts').set(sk()).send({ email: 'reader@example.com' }).expect(201);
      const send = () => t.http.post('/v1/send').set(sk()).send({ to: 'reader@example.com', subject: 'News', body: '<a href="{{unsubscribeUrl}}">unsubscribe</a>', type: 'marketing' });
      expect((await send().expect(200)).body.data.emails[0].status).toBe('QUEUED');
      const [message] = await smtp.waitForMessages(1);
      expect(message.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
      const link = /^<(https:\/\/mail\.example\.test\/email\/unsubscribe\/[^>]+)>$/.exec(message.headers['list-unsubscribe'])![1];
      expect(decodeQuotedPrintable(message.raw)).toContain(link);
      const path = link.replace('https://mail.example.test/email', '');
      // a GET shows a confirmation page and changes nothing
      const page = await t.http.get(path).expect(200);
      expect(page.headers['content-type']).toMatch(/text\/html/);
      expect(page.text).toContain('method="post"');
      expect((await t.http.get(`/contacts/${created.body.id}`).set(sk()).expect(200)).body.subscribed).toBe(true);
      // the mail client's one-click POST
      await t.http.post(path).type('form').send('List-Unsubscribe=One-Click').expect(200);
      expect((await t.http.get(`/contacts/${created.body.id}`).set(sk()).expect(200)).body.subscribed).toBe(false);
      await t.http.post(path).type('form').send('List-Unsubscribe=One-Click').expect(200);
      const events = await t.http.get(`/events/contact/${created.body.id}`).set(sk()).expect(200);
      expect(events.body.data.filter((e: { name: string }) => e.name === 'contact.unsubscribed')).toHaveLength(1);
      // marketing is now suppressed, transactional mail still goes out
      smtp.reset();
      const suppressed = await send().expect(200);
      expect(suppressed.body.data.emails[0].status).toBe('SUPPRESSED');
      await t.http.post('/v1/send').set(sk()).send({ to: 'reader@example.com', subject: 'Receipt', body: 'r' }).expect(200);
      const [receipt] = await smtp.waitForMessages(1);
      expect(receipt.subject).toBe('Receipt');
      expect(smtp.messages).toHaveLength(1);
      expect((await activity(suppressed.body.data.emails[0].email)).type).toBe('email.suppressed');
      // a tampered link is refused
      await t.http.post(`${path.slice(0, -2)}xx`).expect(404);
    });

    it('marks an email FAILED when the server refuses it permanently', async () => {
      smtp.failNext({ code: 550, message: '5.1.1 mailbox unavailable' });
      const res = await t.http.post('/v1/send').set(sk()).send({ to: 'bounce@example.com', subject: 's', body: 'b' }).expect(200);
      const failed = await eventually(async () => {
        const item = await activity(res.body.data.emails[0].email);
        return item?.type === 'email.failed' ? item : undefined;
      }, 'the email to fail');
      expect(failed.data.statusReason).toMatch(/550/);
    });

    it('keeps a temporarily refused email queued with the reason, retries it later, and fails it after SEND_MAX_ATTEMPTS', async () => {
      const ds = t.app.get(Database);
      const table = `${t.config.DATABASE_SCHEMA}.emails`;
      const row = async (id: string) => (await ds.rows<{ status: string; status_reason: string | null; attempts: number }>(`SELECT status, status_reason, attempts FROM ${table} WHERE id = $1`, [id]))[0];
      // A retry is due after a backoff; the test makes it due now instead of waiting.
      const dueNow = (id: string, attempts?: number) =>
        ds.affected(`UPDATE ${table} SET next_attempt_at = now()${attempts ? `, attempts = ${attempts}` : ''} WHERE id = $1`, [id]).then(() => t.app.get(SendWorker).wake());

      smtp.failNext({ code: 451, message: '4.3.0 try again later' });
      const later = (await t.http.post('/v1/send').set(sk()).send({ to: 'later@example.com', subject: 'Later', body: 'b' }).expect(200)).body.data.emails[0].email;
      const waiting = await eventually(async () => {
        const r = await row(later);
        return r.attempts === 1 && r.status_reason ? r : undefined;
      }, 'the first attempt to be refused');
      expect(waiting).toMatchObject({ status: 'QUEUED', status_reason: expect.stringMatching(/451/) });
      expect(smtp.messages).toHaveLength(0);
      await dueNow(later);
      await eventually(async () => (await row(later)).status === 'SENT', 'the retry to be sent');
      expect(smtp.messages.map((m) => m.to[0])).toEqual(['later@example.com']);

      smtp.failNext({ code: 421, message: '4.7.0 busy', times: 2 });
      const never = (await t.http.post('/v1/send').set(sk()).send({ to: 'never@example.com', subject: 'Never', body: 'b' }).expect(200)).body.data.emails[0].email;
      await eventually(async () => /421/.test((await row(never)).status_reason ?? ''), 'the first attempt to be refused');
      await dueNow(never, t.config.SEND_MAX_ATTEMPTS - 1);
      const failed = await eventually(async () => {
        const r = await row(never);
        return r.status === 'FAILED' ? r : undefined;
      }, 'the email to fail after its last attempt');
      expect(failed).toMatchObject({ attempts: t.config.SEND_MAX_ATTEMPTS, status_reason: expect.stringMatching(/421/) });
      expect((await activity(never)).type).toBe('email.failed');
    });

    it('records an email whose answer was lost after its data was ended SENT with the reason, and never sends it again', async () => {
      const ds = t.app.get(Database);
      const table = `${t.config.DATABASE_SCHEMA}.emails`;
      smtp.reset();
      smtp.loseNextAnswer();
      const id = (await t.http.post('/v1/send').set(sk()).send({ to: 'lost@example.com', subject: 'Lost answer', body: 'b' }).expect(200)).body.data.emails[0].email;
      const row = await eventually(async () => {
        const [r] = await ds.rows<{ status: string; status_reason: string | null; claimed_until: Date | null }>(`SELECT status, status_reason, claimed_until FROM ${table} WHERE id = $1`, [id]);
        return r.status_reason ? r : undefined;
      }, 'the lost answer to be recorded');
      expect(row).toMatchObject({ status: 'SENT', status_reason: expect.stringMatching(/answer was lost/), claimed_until: null });
      // a later round has nothing to send again
      await t.app.get(SendWorker).drain();
      expect(smtp.messages.map((m) => m.to[0])).toEqual(['lost@example.com']);
    });

    it('is idempotent with an Idempotency-Key', async () => {
      const body = { to: 'idem@example.com', subject: 'once', body: 'b' };
      const first = await t.http.post('/v1/send').set(sk()).set('Idempotency-Key', 'send-1').send(body).expect(200);
      const again = await t.http.post('/v1/send').set(sk()).set('Idempotency-Key', 'send-1').send(body).expect(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      expect((await t.http.post('/v1/send').set(sk()).set('Idempotency-Key', 'send-1').send({ ...body, subject: 'other' }).expect(409)).body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
      await smtp.waitForMessages(1);
      const queued = (await t.http.get('/activity?limit=100').set(sk()).expect(200)).body.data.filter((a: { email: string; type: string }) => a.email === 'idem@example.com' && a.type.startsWith('email.'));
      expect(queued).toHaveLength(1);
      expect(smtp.messages.filter((m) => m.to[0] === 'idem@example.com')).toHaveLength(1);
    });

    it('validates recipients, headers and attachments with field errors', async () => {
      const bad = await t.http
        .post('/v1/send')
        .set(sk())
        .send({ to: ['ok@example.com', 'nope', { email: 'x' }], subject: 's', body: 'b', headers: { From: 'evil@example.com', 'X-Ok': 'fine' } })
        .expect(422);
      expect(bad.body.error.errors.map((e: { field: string }) => e.field)).toEqual(expect.arrayContaining(['to.1', 'to.2.email', 'headers.From']));
      const missing = await t.http.post('/v1/send').set(sk()).send({ to: 'a@example.com' }).expect(422);
      expect(missing.body.error.errors.map((e: { field: string }) => e.field)).toEqual(expect.arrayContaining(['subject', 'body']));
      const tooMany = Array.from({ length: 51 }, (_, i) => `r${i}@example.com`);
      expect((await t.http.post('/v1/send').set(sk()).send({ to: tooMany, subject: 's', body: 'b' }).expect(422)).body.error.errors[0].field).toBe('to');
      const attachment = await t.http.post('/v1/send').set(sk()).send({ to: 'a@example.com', subject: 's', body: 'b', attachments: [{ filename: 'a', content: 'not base64!' }] }).expect(422);
      expect(attachment.body.error.errors[0].field).toBe('attachments.0.content');
      expect((await t.http.post('/v1/send').set(sk()).send({ to: 'a@example.com', subject: 'line\nbreak', body: 'b' }).expect(422)).body.error.errors[0].field).toBe('subject');
    });
  });

  describe('without SMTP_URL', () => {
    let t: EmailTestApp;
    beforeAll(async () => {
      t = await startEmailApi();
    });
    afterAll(() => t?.close());

    it('stores the email unsent in the activity feed and says so', async () => {
      const { project } = await newProject(t);
      const res = await t.http.post('/v1/send').set(bearer(project.secretKey)).send({ to: 'x@example.com', subject: 's', body: 'b' }).expect(200);
      expect(res.body.data).toMatchObject({ delivery: 'stored', note: expect.stringContaining('SMTP_URL'), emails: [expect.objectContaining({ status: 'STORED' })] });
      const feed = await t.http.get('/activity').set(bearer(project.secretKey)).expect(200);
      const item = feed.body.data.find((a: { id: string }) => a.id === res.body.data.emails[0].email);
      expect(item).toMatchObject({ type: 'email.stored', title: 's', email: 'x@example.com', data: { status: 'STORED', statusReason: expect.stringContaining('not sent') } });
    });

    it.each([
      ['an array', [[]], 'attachments'],
      ['null', [null], 'attachments.0'],
      ['a number', [1], 'attachments.0'],
      ['an object whose content is an array', [{ filename: 'a.txt', content: [] }], 'attachments.0.content'],
    ])('refuses an attachment that is %s with a field error, never a 500', async (_what, attachments, field) => {
      const { project } = await newProject(t);
      const res = await t.http.post('/v1/send').set(bearer(project.secretKey)).send({ to: 'x@example.com', subject: 's', body: 'b', attachments }).expect(422);
      expect(res.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR', statusCode: 422 } });
      expect(res.body.error.errors.map((e: { field: string }) => e.field)).toContain(field);
      // nothing was stored
      expect((await t.http.get('/activity').set(bearer(project.secretKey)).expect(200)).body.data.filter((a: { type: string }) => a.type.startsWith('email.'))).toEqual([]);
    });
  });
});
