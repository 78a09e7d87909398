import { Database } from '@platform/database';
import { startFakeDnsServer, startFakeSmtpSink, type FakeDnsServer, type FakeSmtpSink } from '@platform/testing';
import { generateKeyPairSync } from 'node:crypto';
import { dkimSign } from 'mailauth/lib/dkim/sign';
import { createTransport } from 'nodemailer';
import { arfMessage, dsnMessage } from '../../test/feedback-mail';
import { sesEvent, startFakeSns, type FakeSns } from '../../test/fake-sns';
import { bearer, eventually, newProject, startEmailApi, type EmailTestApp, type TestProject } from '../../test/helpers';
import { verifiedDomain } from '../../test/marketing';
import { SmtpReceiver } from './smtp-receiver';

/**
 * The deliverability feedback loop end to end: mails sent from a verified domain carry their
 * return path; DSNs and ARF reports delivered over SMTP to the receiver land once as mail events
 * and suppress the address; Amazon SES events through SNS, signed, do the same.
 */
const TOPIC = 'arn:aws:sns:us-east-1:123456789012:ses-events';

describe('feedback loop (e2e): inbound SMTP receiver and the SES webhook', () => {
  let t: EmailTestApp;
  let sns: FakeSns;
  let dns: FakeDnsServer;
  let sink: FakeSmtpSink;
  let project: TestProject;
  let db: Database;
  const sk = () => bearer(project.secretKey);
  const schema = () => t.config.DATABASE_SCHEMA!;

  beforeAll(async () => {
    dns = await startFakeDnsServer();
    sink = await startFakeSmtpSink();
    sns = await startFakeSns();
    t = await startEmailApi({
      DNS_SERVERS: dns.address,
      DNS_TIMEOUT_MS: '1000',
      SMTP_URL: sink.url,
      INBOUND_MAX_BYTES: String(64 * 1024),
      SES_SNS_TOPIC_ARNS: TOPIC,
      SNS_CERT_HOST_PATTERN: '^127\\.0\\.0\\.1$',
      SNS_TLS_CA_FILE: sns.caFile,
    });
    db = t.app.get(Database);
    ({ project } = await newProject(t, 'Feedback'));
    await verifiedDomain(t, dns, project, 'news.feedback.test');
    await sink.waitForMessages(1);
    sink.reset();
  });
  afterAll(async () => {
    await t?.close();
    await dns?.close();
    await sink?.close();
    await sns?.close();
  });

  /** Sends one mail to `to` through the API and answers its id and the envelope sender it went out with. */
  async function sendMail(to: string): Promise<{ id: string; returnPath: string }> {
    sink.reset();
    const res = await t.http.post('/v1/send').set(sk()).send({ to, from: 'hello@news.feedback.test', subject: 'Hi', body: '<p>Hi</p>' }).expect(200);
    const id: string = res.body.data.emails[0].email;
    const [message] = await sink.waitForMessages(1);
    return { id, returnPath: message.from };
  }

  function receiver() {
    return createTransport({ host: '127.0.0.1', port: t.app.get(SmtpReceiver).port!, secure: false, ignoreTLS: true, pool: false });
  }

  async function deliver(envelope: { from: string; to: string[] }, raw: string): Promise<{ ok: true } | { ok: false; code: number | undefined; message: string }> {
    const transport = receiver();
    try {
      await transport.sendMail({ envelope, raw });
      return { ok: true };
    } catch (err) {
      const e = err as Error & { responseCode?: number };
      return { ok: false, code: e.responseCode, message: e.message };
    } finally {
      transport.close();
    }
  }

  const events = (emailId: string) =>
    db.rows<{ type: string; bounce_type: string | null; source: string; recipient: string }>(`SELECT type, bounce_type, source, recipient FROM ${schema()}.mail_events WHERE email_id = $1 AND type <> 'send' ORDER BY created_at`, [emailId]);
  const suppression = (email: string) =>
    db.one<{ reason: string; source: string }>(`SELECT reason, source FROM ${schema()}.suppressions WHERE project_id = $1 AND email = $2`, [project.id, email]);

  it('sends mail from a verified domain with its return path and stores the server\'s id of it', async () => {
    const { id, returnPath } = await sendMail('carol@remote.test');
    expect(returnPath).toBe(`bounces+${id}@bounce.news.feedback.test`);
    // the fake sink answers "250 2.0.0 OK queued as <n>"
    const row = await eventually(() => db.one<{ provider_message_id: string | null }>(`SELECT provider_message_id FROM ${schema()}.emails WHERE id = $1 AND provider_message_id IS NOT NULL`, [id]), 'the provider message id');
    expect(row.provider_message_id).toMatch(/^\d+$/);
  });

  it('a DSN delivered over SMTP records a hard bounce once and suppresses the address', async () => {
    const { id, returnPath } = await sendMail('bob@remote.test');
    const dsn = dsnMessage({ recipient: 'bob@remote.test', originalMessageId: `${id}@news.feedback.test`, messageId: `dsn.${id}@mx.remote.test` });
    expect(await deliver({ from: '', to: [returnPath] }, dsn)).toEqual({ ok: true });
    // the remote server sends it again (our answer was lost): nothing new lands
    expect(await deliver({ from: '', to: [returnPath] }, dsn)).toEqual({ ok: true });
    expect(await events(id)).toEqual([{ type: 'bounce', bounce_type: 'hard', source: 'smtp-dsn', recipient: 'bob@remote.test' }]);
    expect(await suppression('bob@remote.test')).toMatchObject({ reason: 'hard_bounce' });
    const mail = await db.one<{ bounced_at: Date | null }>(`SELECT bounced_at FROM ${schema()}.emails WHERE id = $1`, [id]);
    expect(mail!.bounced_at).toBeInstanceOf(Date);
  });

  it('a soft bounce is recorded but does not suppress the address by itself', async () => {
    const { id, returnPath } = await sendMail('full@remote.test');
    expect(await deliver({ from: '', to: [returnPath] }, dsnMessage({ recipient: 'full@remote.test', status: '4.2.2', diagnostic: '452 4.2.2 mailbox full' }))).toEqual({ ok: true });
    expect(await events(id)).toEqual([{ type: 'bounce', bounce_type: 'soft', source: 'smtp-dsn', recipient: 'full@remote.test' }]);
    expect(await suppression('full@remote.test')).toBeNull();
  });

  it('an ARF report records a complaint and suppresses the address', async () => {
    const { id, returnPath } = await sendMail('dave@remote.test');
    // a feedback loop sends to its own registered address; the report names the return path
    const arf = arfMessage({ recipient: 'dave@remote.test', originalMailFrom: returnPath, originalMessageId: `${id}@news.feedback.test` });
    expect(await deliver({ from: 'fbl@isp.test', to: [returnPath] }, arf)).toEqual({ ok: true });
    expect(await events(id)).toEqual([{ type: 'complaint', bounce_type: null, source: 'smtp-arf', recipient: 'dave@remote.test' }]);
    expect(await suppression('dave@remote.test')).toMatchObject({ reason: 'complaint' });
  });

  it('refuses unknown recipients, malformed reports and oversized mail with the right codes', async () => {
    const { id, returnPath } = await sendMail('erin@remote.test');
    // not a return path of ours, a well-formed one naming no mail, one naming a mail of another domain
    expect(await deliver({ from: '', to: ['someone@bounce.news.feedback.test'] }, dsnMessage({ recipient: 'x@y.test' }))).toMatchObject({ ok: false, code: 550 });
    expect(await deliver({ from: '', to: ['bounces+eml_00000000000000000000@bounce.news.feedback.test'] }, dsnMessage({ recipient: 'x@y.test' }))).toMatchObject({ ok: false, code: 550 });
    expect(await deliver({ from: '', to: [`bounces+${id}@bounce.other.test`] }, dsnMessage({ recipient: 'x@y.test' }))).toMatchObject({ ok: false, code: 550 });
    // a DSN whose status part is missing
    const broken = 'From: MAILER-DAEMON@mx.remote.test\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=x\r\n\r\n--x\r\nContent-Type: text/plain\r\n\r\nfailed\r\n--x--\r\n';
    expect(await deliver({ from: '', to: [returnPath] }, broken)).toMatchObject({ ok: false, code: 554, message: expect.stringContaining('5.6.0') });
    // larger than INBOUND_MAX_BYTES (64 KiB here)
    const big = `From: a@b.test\r\nSubject: big\r\n\r\n${'x'.repeat(76).concat('\r\n').repeat(1200)}`;
    expect(await deliver({ from: '', to: [returnPath] }, big)).toMatchObject({ ok: false, code: 552 });
    // an auto-reply to the return path is taken and records nothing
    expect(await deliver({ from: 'erin@remote.test', to: [returnPath] }, 'From: erin@remote.test\r\nSubject: Out of office\r\n\r\nAway until Monday.\r\n')).toEqual({ ok: true });
    expect(await events(id)).toEqual([]);
    expect(await suppression('erin@remote.test')).toBeNull();
  });

  describe('POST /webhooks/ses', () => {
    const post = (body: unknown, textPlain = true) =>
      textPlain ? t.http.post('/webhooks/ses').set('Content-Type', 'text/plain; charset=UTF-8').send(JSON.stringify(body)) : t.http.post('/webhooks/ses').send(body as object);
    const providerId = (id: string) =>
      eventually(() => db.one<{ provider_message_id: string }>(`SELECT provider_message_id FROM ${schema()}.emails WHERE id = $1 AND provider_message_id IS NOT NULL`, [id]), 'the provider message id').then((r) => r.provider_message_id);

    it('confirms a signed subscription by GETting its SubscribeURL', async () => {
      const confirmation = sns.subscriptionConfirmation(TOPIC);
      const res = await post(confirmation).expect(200);
      expect(res.body).toEqual({ type: 'SubscriptionConfirmation', confirmed: true });
      expect(sns.confirmations).toEqual([confirmation.Token]);
    });

    it('records a signed SES bounce once and suppresses the address; a duplicate and the same bounce from a DSN count once', async () => {
      const { id, returnPath } = await sendMail('frank@remote.test');
      const sesId = await providerId(id);
      const bounce = sns.notification(TOPIC, sesEvent('Bounce', sesId, 'frank@remote.test'), { version: '1' });
      expect((await post(bounce).expect(200)).body).toEqual({ type: 'Notification', sesEventType: 'Bounce', emailId: id, events: 1, recorded: 1 });
      // SNS delivers again, SES publishes the same bounce under a new SNS message, a DSN reports it too
      expect((await post(bounce).expect(200)).body).toMatchObject({ events: 1, recorded: 0 });
      expect((await post(sns.notification(TOPIC, sesEvent('Bounce', sesId, 'frank@remote.test'), { version: '2' })).expect(200)).body).toMatchObject({ recorded: 0 });
      expect(await deliver({ from: '', to: [returnPath] }, dsnMessage({ recipient: 'frank@remote.test' }))).toEqual({ ok: true });
      expect(await events(id)).toEqual([{ type: 'bounce', bounce_type: 'hard', source: 'ses', recipient: 'frank@remote.test' }]);
      expect(await suppression('frank@remote.test')).toMatchObject({ reason: 'hard_bounce' });
      // the signing certificate was fetched once (cached)
      expect(sns.certificateDownloads).toBe(1);
    });

    it('records a complaint and a delivery (application/json too)', async () => {
      const { id } = await sendMail('gina@remote.test');
      const sesId = await providerId(id);
      expect((await post(sns.notification(TOPIC, sesEvent('Delivery', sesId, 'gina@remote.test'), { version: '2' }), false).expect(200)).body).toMatchObject({ sesEventType: 'Delivery', recorded: 1 });
      expect((await post(sns.notification(TOPIC, sesEvent('Complaint', sesId, 'gina@remote.test'))).expect(200)).body).toMatchObject({ sesEventType: 'Complaint', recorded: 1 });
      expect((await events(id)).map((e) => e.type).sort()).toEqual(['complaint', 'delivery']);
      expect(await suppression('gina@remote.test')).toMatchObject({ reason: 'complaint' });
      // an event about a mail this service does not know records nothing
      expect((await post(sns.notification(TOPIC, sesEvent('Bounce', 'unknown-ses-id', 'x@remote.test'))).expect(200)).body).toMatchObject({ emailId: null, recorded: 0 });
    });

    it('refuses forged, unsigned, tampered and foreign deliveries in the error shape', async () => {
      const { id } = await sendMail('hank@remote.test');
      const sesId = await providerId(id);
      const event = sesEvent('Bounce', sesId, 'hank@remote.test');
      const refused = async (body: unknown, status: number, code: string) => {
        const res = await post(body).expect(status);
        expect(res.body).toMatchObject({ success: false, error: { code, statusCode: status, requestId: expect.any(String), suggestion: expect.any(String) } });
      };
      await refused(sns.notification(TOPIC, event, { forged: true }), 403, 'SNS_SIGNATURE_INVALID');
      await refused({ ...sns.notification(TOPIC, event), Message: JSON.stringify({ ...event, bounce: { bounceType: 'Permanent', bouncedRecipients: [{ emailAddress: 'other@remote.test' }] } }) }, 403, 'SNS_SIGNATURE_INVALID');
      const { Signature: _s, SignatureVersion: _v, SigningCertURL: _c, ...unsigned } = sns.notification(TOPIC, event);
      await refused(unsigned, 403, 'SNS_SIGNATURE_MISSING');
      await refused({ ...sns.notification(TOPIC, event), SigningCertURL: 'https://evil.test/SimpleNotificationService-test.pem' }, 403, 'SNS_CERT_URL_NOT_ALLOWED');
      await refused({ ...sns.notification(TOPIC, event), SigningCertURL: sns.certUrl.replace('https:', 'http:') }, 403, 'SNS_CERT_URL_NOT_ALLOWED');
      await refused(sns.notification('arn:aws:sns:us-east-1:123456789012:someone-else', event), 403, 'SNS_TOPIC_NOT_ALLOWED');
      await refused({ Type: 'Notification' }, 422, 'VALIDATION_ERROR');
      const garbage = await t.http.post('/webhooks/ses').set('Content-Type', 'text/plain').send('{not json').expect(400);
      expect(garbage.body.error.code).toBe('BAD_REQUEST');
      expect(await events(id)).toEqual([]);
      expect(await suppression('hank@remote.test')).toBeNull();
    });
  });

  describe('inbound mail for verified domains', () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const publicB64 = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');

    beforeAll(() => {
      // the replying party's domain: DKIM key, SPF for the loopback sender, DMARC
      dns.set('s1._domainkey.sender.test', { TXT: [`v=DKIM1; k=rsa; p=${publicB64}`] });
      dns.set('sender.test', { TXT: ['v=spf1 ip4:127.0.0.1 -all'] });
      dns.set('_dmarc.sender.test', { TXT: ['v=DMARC1; p=reject'] });
    });

    const inboundEvents = (emailId: string) => db.rows<{ type: string; recipient: string }>(`SELECT type, recipient FROM ${schema()}.mail_events WHERE email_id = $1 AND type = 'received'`, [emailId]);

    it('stores a DKIM-signed reply, threads it to its mail and shows SPF, DKIM and DMARC', async () => {
      const { id } = await sendMail('ivy@sender.test');
      const sentMessageId = `<${id}@news.feedback.test>`;
      const signed = createTransport({ host: '127.0.0.1', port: t.app.get(SmtpReceiver).port!, secure: false, ignoreTLS: true, dkim: { domainName: 'sender.test', keySelector: 's1', privateKey: privatePem } });
      const reply = {
        envelope: { from: 'ivy@sender.test', to: ['hello@news.feedback.test'] },
        from: 'Ivy <ivy@sender.test>',
        to: 'hello@news.feedback.test',
        subject: 'Re: Hi',
        text: 'Thanks, see the file.',
        html: '<p>Thanks, see the file.</p>',
        inReplyTo: sentMessageId,
        references: [sentMessageId],
        messageId: '<reply-1@sender.test>',
        attachments: [{ filename: 'notes.txt', content: 'some notes' }],
      };
      await signed.sendMail(reply);
      // the sender's retry after a lost answer is stored once
      await signed.sendMail(reply);
      signed.close();

      const list = await t.http.get(`/inbound?emailId=${id}`).set(sk()).expect(200);
      expect(list.body).toMatchObject({ total: 1, hasMore: false, data: [{ emailId: id, from: { email: 'ivy@sender.test', name: 'Ivy' }, subject: 'Re: Hi', text: null, headers: [] }] });
      const message = (await t.http.get(`/inbound/${list.body.data[0].id}`).set(sk()).expect(200)).body;
      expect(message).toMatchObject({
        messageId: 'reply-1@sender.test',
        inReplyTo: sentMessageId,
        emailId: id,
        to: ['hello@news.feedback.test'],
        envelope: { mailFrom: 'ivy@sender.test', rcptTo: ['hello@news.feedback.test'], remoteAddress: expect.stringContaining('127.0.0.1') },
        text: expect.stringContaining('Thanks, see the file.'),
        html: '<p>Thanks, see the file.</p>',
        attachments: [{ filename: 'notes.txt', contentType: 'text/plain', size: 10 }],
        auth: {
          spf: { result: 'pass', domain: 'sender.test' },
          dkim: [{ result: 'pass', domain: 'sender.test', selector: 's1', aligned: true }],
          dmarc: { result: 'pass', domain: 'sender.test', policy: 'reject' },
        },
      });
      expect(message.headers).toEqual(expect.arrayContaining([{ name: 'subject', value: 'Re: Hi' }]));
      expect(await inboundEvents(id)).toEqual([{ type: 'received', recipient: 'ivy@sender.test' }]);
      // email.received on the bus once, through the outbox, with the verdicts and the mail it replies to
      const published = await db.rows<{ data: Record<string, unknown> }>(`SELECT data FROM ${schema()}.outbox WHERE type = 'email.received' AND data->>'inReplyToEmailId' = $1`, [id]);
      expect(published.map((r) => r.data)).toEqual([
        expect.objectContaining({
          inboundId: message.id,
          messageId: 'reply-1@sender.test',
          from: 'ivy@sender.test',
          to: ['hello@news.feedback.test'],
          subject: 'Re: Hi',
          authentication: { spf: 'pass', dkim: 'pass', dmarc: 'pass' },
        }),
      ]);
    });

    it('shows a signature broken in transit as a DKIM failure, and refuses domains nobody verified', async () => {
      const raw = 'From: ivy@sender.test\r\nTo: sales@news.feedback.test\r\nSubject: Offer\r\nMessage-ID: <offer-1@sender.test>\r\n\r\nPrice: 10 EUR\r\n';
      const { signatures } = await dkimSign(raw, { canonicalization: 'relaxed/relaxed', signatureData: [{ signingDomain: 'sender.test', selector: 's1', privateKey: privatePem }] } as never) // the typings describe one signature; the function takes signatureData;
      const tampered = (signatures + raw).replace('Price: 10 EUR', 'Price: 1000 EUR');
      // sent through a forwarder: MAIL FROM of another domain, so SPF cannot align for DMARC either
      expect(await deliver({ from: 'relay@forwarder.test', to: ['sales@news.feedback.test'] }, tampered)).toEqual({ ok: true });
      const list = await t.http.get('/inbound').set(sk()).expect(200);
      const stored = list.body.data.find((m: { messageId: string }) => m.messageId === 'offer-1@sender.test');
      // mailauth reads a body hash mismatch as `neutral` (the signature itself is fine, the body is not what was signed)
      expect(stored).toMatchObject({ emailId: null, auth: { spf: { result: 'none', domain: 'forwarder.test' }, dkim: [{ result: 'neutral', domain: 'sender.test' }], dmarc: { result: 'fail', domain: 'sender.test' } } });
      expect(stored.auth.header).toContain('body hash did not verify');
      expect(await deliver({ from: 'ivy@sender.test', to: ['someone@unverified.test'] }, raw)).toMatchObject({ ok: false, code: 550 });
      await t.http.get('/inbound/inb_00000000000000000000').set(sk()).expect(404);
    });
  });

  describe('send throttle with priorities', () => {
    it('a /v1/send goes before a large queued campaign of the same project, and the project\'s rate holds', async () => {
      const { project: busy } = await newProject(t, 'Throttled');
      const key = bearer(busy.secretKey);
      await verifiedDomain(t, dns, busy, 'throttle.test');
      // the rate is a project setting (10 mails a second, every kind of mail)
      const setting = await t.http.put(`/projects/${busy.id}/sending`).set(key).send({ sendRate: 10 }).expect(200);
      expect(setting.body).toMatchObject({ sendRate: 10, effectiveRate: 10, maxRate: 100 });
      await t.http.put(`/projects/${busy.id}/sending`).set(key).send({ sendRate: 1000 }).expect(422);
      await t.http.put(`/projects/${busy.id}/sending`).set(key).send({ sendRate: 0 }).expect(422);
      const n = 40;
      for (let i = 0; i < n; i++) await t.http.post('/contacts').set(key).send({ email: `reader${i}@remote.test`, subscribed: true }).expect((r) => expect([200, 201]).toContain(r.status));
      sink.reset();
      const campaign = await t.http.post('/campaigns').set(key).send({ name: 'Big', subject: 'News', body: '<p>News</p>', from: 'news@throttle.test', audienceType: 'ALL' }).expect(201);
      await t.http.post(`/campaigns/${campaign.body.id}/send`).set(key).send({}).expect(200);
      // the whole campaign queued and due at once: a backlog (its pacing slots moved to now)
      await eventually(async () => {
        const queued = (await db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema()}.emails WHERE campaign_id = $1`, [campaign.body.id]))!.n;
        if (queued < n) return false;
        await db.affected(`UPDATE ${schema()}.emails SET next_attempt_at = now() WHERE campaign_id = $1 AND status = 'QUEUED'`, [campaign.body.id]);
        return true;
      }, 'the campaign to be queued', 800);
      const started = Date.now();
      await t.http.post('/v1/send').set(key).send({ to: 'urgent@remote.test', from: 'hello@throttle.test', subject: 'Your code', body: '<p>123456</p>' }).expect(200);
      const urgent = await eventually(async () => sink.messages.find((m) => m.to[0] === 'urgent@remote.test'), 'the transactional mail');
      const campaignBefore = sink.messages.filter((m) => m.subject === 'News' && m.receivedAt <= urgent.receivedAt).length;
      // at 10 a second the campaign needs about 4 s; the transactional mail did not wait for it
      expect(campaignBefore).toBeLessThan(n / 2);
      await sink.waitForMessages(n + 1, 20_000);
      const all = sink.messages.filter((m) => m.subject === 'News' || m.to[0] === 'urgent@remote.test').map((m) => m.receivedAt.getTime());
      const elapsed = (Math.max(...all) - started) / 1000;
      // 41 mails with a bucket of 10 and 10 more a second: at least 3.1 s
      expect(elapsed).toBeGreaterThan((n + 1 - 10) / 10 - 0.2);
    }, 60_000);
  });
});
