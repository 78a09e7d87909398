// The email inbox against a real IMAP server (Dovecot, started here from a temporary config) and an
// SMTP sink: mail in → conversation (attachments downloadable) → the agent's reply out in the same
// thread → the contact's answer back in the same conversation; automatic replies and own mail open
// nothing; two replicas polling one mailbox take each mail once; the server test route.
import { createTestDatabase, startFakeSmtpSink, type FakeSmtpSink, type TestDatabase } from '@platform/testing';
import { randomBytes } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer';
import { DataSource } from 'typeorm';
import { ChannelsService } from '../channels/channels.service';
import { ADMIN_EMAIL, ADMIN_PASSWORD, delivered, login, startApp, whatsappChannel, type ConversationTestApp, type Session } from '../../test/helpers';
import { dovecotAvailable, startDovecot, type TestDovecot } from '../../test/dovecot';
import { MailIn } from './mail-in';
import { MailInWorker } from './mail-in.worker';

const MAILBOX = { user: 'support', password: 'imap-secret-1' };
const OTHER_MAILBOX = { user: 'sales', password: 'imap-secret-2' };
const SMTP_AUTH = { user: 'support', pass: 'smtp-secret-1' };
const ADDRESS = 'support@example.com';

const compose = (opts: ConstructorParameters<typeof MailComposer>[0]): Promise<Buffer> => new MailComposer(opts).compile().build();

(dovecotAvailable('the email channel tests') ? describe : describe.skip)('conversation-api email channel (Dovecot, SMTP)', () => {
  let db: TestDatabase;
  let dovecot: TestDovecot;
  let smtp: FakeSmtpSink;
  let a: ConversationTestApp;
  let b: ConversationTestApp;
  let admin: Session;
  let channelId: string;

  // The worker of the replica polls the mailbox now (its loop may be polling it already: drain waits for that too).
  const poll = async (t: ConversationTestApp = a) => {
    await t.app.get(ChannelsService).pollSoon(channelId);
    await t.app.get(MailInWorker).drain();
  };
  const conversations = async (query: Record<string, string | number> = {}) => (await a.http.get('/api/v1/conversations').query({ channel_id: channelId, limit: 100, ...query }).set(admin.auth).expect(200)).body;
  const messagesOf = async (id: string) => (await a.http.get(`/api/v1/conversations/${id}/messages`).query({ limit: 100 }).set(admin.auth).expect(200)).body.data.filter((m: { message_type: string }) => m.message_type !== 'activity');
  const channel = async () => (await a.http.get(`/api/v1/channels/${channelId}`).set(admin.auth).expect(200)).body.data;
  const settings = (over: { imapPassword?: string; smtpPassword?: string } = {}) => ({
    imap: { host: '127.0.0.1', port: dovecot.port, secure: false, user: MAILBOX.user, password: over.imapPassword ?? MAILBOX.password },
    smtp: { host: '127.0.0.1', port: smtp.port, secure: false, user: SMTP_AUTH.user, password: over.smtpPassword ?? SMTP_AUTH.pass },
  });

  beforeAll(async () => {
    dovecot = await startDovecot([MAILBOX, OTHER_MAILBOX]);
    smtp = await startFakeSmtpSink({ auth: SMTP_AUTH });
    db = await createTestDatabase();
    // Two replicas on one database, with the same secrets.
    const env = { DATABASE_URL: db.url, DATABASE_SCHEMA: db.schema, CONVERSATION_ENCRYPTION_KEY: randomBytes(32).toString('hex'), CONVERSATION_JWT_SECRET: randomBytes(32).toString('hex'), CONVERSATION_DELIVERY_RETRY_MS: '1', CONVERSATION_EMAIL_MAX_BYTES: '100000' };
    a = await startApp(env);
    b = await startApp(env);
    admin = await login(a, ADMIN_EMAIL, ADMIN_PASSWORD);
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
    await smtp?.close();
    await dovecot?.close();
  });

  it('connects an inbox with encrypted server settings, and tests both servers', async () => {
    const bad = await a.http.post('/api/v1/channels/email').set(admin.auth).send({ name: 'Mail', email: 'not-an-address', imap: { host: 'bad host', port: 0, user: 'u' } }).expect(422);
    expect(bad.body.error.errors.map((e: { field: string }) => e.field).sort()).toEqual(expect.arrayContaining(['email', 'imap.host', 'imap.port', 'imap.password', 'smtp']));

    const created = (await a.http.post('/api/v1/channels/email').set(admin.auth).send({ name: 'Support mail', email: ADDRESS, ...settings() }).expect(201)).body.data;
    channelId = created.id;
    expect(created).toMatchObject({
      type: 'email',
      webhook_path: null,
      email: { address: ADDRESS, imap: { host: '127.0.0.1', port: dovecot.port, secure: false, user: 'support', mailbox: 'INBOX' }, smtp: { port: smtp.port, secure: false } },
      status: { mailbox: { uid_validity: null, last_uid: null, received: 0 } },
    });
    expect(JSON.stringify(created)).not.toMatch(/secret/);
    const stored = await a.app.get(DataSource).query(`SELECT credentials FROM ${a.config.DATABASE_SCHEMA}.channels WHERE id = $1`, [channelId]);
    expect(stored[0].credentials).not.toMatch(/secret/);

    const test = (await a.http.post(`/api/v1/channels/${channelId}/test`).set(admin.auth).expect(200)).body.data;
    expect(test).toMatchObject({ ok: true, imap: { ok: true, error: null, messages: 0, uid_validity: expect.any(Number) }, smtp: { ok: true, error: null } });
    expect(smtp.messages).toHaveLength(0);

    // PATCH replaces a server block; WhatsApp credentials do not apply.
    const notApplicable = await a.http.patch(`/api/v1/channels/${channelId}`).set(admin.auth).send({ access_token: 'EAAG-another-token' }).expect(422);
    expect(notApplicable.body.error.errors[0].field).toBe('access_token');
    const patched = (await a.http.patch(`/api/v1/channels/${channelId}`).set(admin.auth).send({ smtp: { ...settings().smtp, port: smtp.port } }).expect(200)).body.data;
    expect(patched.email.smtp).toEqual({ host: '127.0.0.1', port: smtp.port, secure: false, user: 'support' });
    expect((await a.http.post(`/api/v1/channels/${channelId}/test`).set(admin.auth).expect(200)).body.data.ok).toBe(true);

    const wa = await whatsappChannel(a, admin);
    expect((await a.http.patch(`/api/v1/channels/${wa.id}`).set(admin.auth).send({ smtp: settings().smtp }).expect(422)).body.error.errors[0].field).toBe('smtp');
    expect((await a.http.post(`/api/v1/channels/${wa.id}/test`).set(admin.auth).expect(422)).body.error.code).toBe('CHANNEL_TEST_UNSUPPORTED');
  });

  it('takes a mail in through IMAP, sends the reply through SMTP in the same thread, and threads the answer back', async () => {
    const first = await compose({
      from: 'Kim Customer <kim@example.org>',
      to: ADDRESS,
      subject: 'Order 1042 missing',
      messageId: '<order-1042@example.org>',
      text: 'My order 1042 never arrived.',
      attachments: [{ filename: 'receipt.pdf', content: Buffer.from('%PDF-1.4 receipt'), contentType: 'application/pdf' }],
    });
    const uid = await dovecot.deliver(MAILBOX, first);
    await poll();

    const [conversation] = (await conversations()).data;
    expect(conversation.contact).toMatchObject({ name: 'Kim Customer', email: 'kim@example.org' });
    const [incoming] = await messagesOf(conversation.id);
    expect(incoming).toMatchObject({
      message_type: 'incoming',
      content: 'My order 1042 never arrived.',
      content_type: 'incoming_email',
      source_id: '<order-1042@example.org>',
      content_attributes: { email: { subject: 'Order 1042 missing', from: [{ address: 'kim@example.org', name: 'Kim Customer' }], message_id: '<order-1042@example.org>' } },
      attachments: [{ type: 'document', filename: 'receipt.pdf', mime_type: 'application/pdf', download_path: expect.any(String) }],
    });
    const file = await a.http.get(incoming.attachments[0].download_path).set(admin.auth).buffer(true).parse((res, cb) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => cb(null, Buffer.concat(chunks)));
    }).expect(200);
    expect(file.body.toString()).toBe('%PDF-1.4 receipt');
    expect((await channel()).status.mailbox).toMatchObject({ last_uid: uid, received: 1, last_error: null });

    // The agent's reply goes out through the delivery worker and SMTP, answering the mail.
    const reply = (await a.http.post(`/api/v1/conversations/${conversation.id}/messages`).set(admin.auth).send({ content: 'Sorry! A new parcel is on its way.' }).expect(201)).body.data;
    const sent = await delivered(a, admin.auth, conversation.id, reply.id);
    expect(sent.status).toBe('sent');
    const [out] = await smtp.waitForMessages(1);
    expect(out.to).toEqual(['kim@example.org']);
    expect(out.authUser).toBe('support');
    expect(out.headers).toMatchObject({ subject: 'Re: Order 1042 missing', 'in-reply-to': '<order-1042@example.org>', references: '<order-1042@example.org>' });
    expect(out.headers.from).toContain(ADDRESS);
    expect(out.headers['message-id']).toBe(sent.source_id);
    expect(out.body).toContain('A new parcel is on its way.');

    // Kim answers the reply: the same conversation. A new mail of Kim's opens another one.
    await dovecot.deliver(MAILBOX, await compose({ from: 'kim@example.org', to: ADDRESS, subject: 'Re: Order 1042 missing', messageId: '<answer@example.org>', inReplyTo: sent.source_id!, references: ['<order-1042@example.org>', sent.source_id!], text: 'Thanks, got it.' }));
    await dovecot.deliver(MAILBOX, await compose({ from: 'kim@example.org', to: ADDRESS, subject: 'Another question', messageId: '<question@example.org>', text: 'Do you ship to Norway?' }));
    // An out-of-office answer to our reply, a bulk mail, and a copy of our own mail open nothing.
    await dovecot.deliver(MAILBOX, await compose({ from: 'kim@example.org', to: ADDRESS, subject: 'Out of office', inReplyTo: sent.source_id!, headers: { 'Auto-Submitted': 'auto-replied' }, text: 'I am away.' }));
    await dovecot.deliver(MAILBOX, await compose({ from: 'news@shop.example.net', to: ADDRESS, subject: 'Deals', headers: { Precedence: 'bulk' }, text: 'Deals!' }));
    const lastUid = await dovecot.deliver(MAILBOX, await compose({ from: `Support <${ADDRESS}>`, to: 'kim@example.org', subject: 'Copy', text: 'our own' }));
    await poll();

    const thread = await messagesOf(conversation.id);
    expect(thread.map((m: { message_type: string; content: string }) => [m.message_type, m.content])).toEqual([
      ['incoming', 'My order 1042 never arrived.'],
      ['outgoing', 'Sorry! A new parcel is on its way.'],
      ['incoming', 'Thanks, got it.'],
    ]);
    expect(thread[1].content_attributes.email).toMatchObject({ subject: 'Re: Order 1042 missing', in_reply_to: '<order-1042@example.org>', message_id: sent.source_id });
    const all = (await conversations()).data;
    expect(all).toHaveLength(2);
    expect(all.map((c: { contact: { email: string } }) => c.contact.email)).toEqual(['kim@example.org', 'kim@example.org']);
    expect((await channel()).status.mailbox).toMatchObject({ last_uid: lastUid, received: 3, auto_replies_skipped: 2, own_mails_skipped: 1 });

    // Nothing new: a poll takes nothing; the reply to the second conversation answers its mail.
    await poll();
    expect((await conversations()).meta.total).toBe(2);
    const second = all.find((c: { id: string }) => c.id !== conversation.id);
    const answer = (await a.http.post(`/api/v1/conversations/${second.id}/messages`).set(admin.auth).send({ content: 'Yes, we do.' }).expect(201)).body.data;
    await delivered(a, admin.auth, second.id, answer.id);
    const [, out2] = await smtp.waitForMessages(2);
    expect(out2.headers).toMatchObject({ subject: 'Re: Another question', 'in-reply-to': '<question@example.org>' });

    // A refused recipient fails the reply with the server's answer; a temporary refusal is retried.
    smtp.failNext({ code: 451, message: 'try again later' });
    const retried = (await a.http.post(`/api/v1/conversations/${second.id}/messages`).set(admin.auth).send({ content: 'One more thing.' }).expect(201)).body.data;
    expect(await delivered(a, admin.auth, second.id, retried.id)).toMatchObject({ status: 'sent' });
    smtp.failNext({ code: 550, message: 'mailbox unavailable' });
    const refused = (await a.http.post(`/api/v1/conversations/${second.id}/messages`).set(admin.auth).send({ content: 'Refused.' }).expect(201)).body.data;
    expect(await delivered(a, admin.auth, second.id, refused.id)).toMatchObject({ status: 'failed', error: expect.stringMatching(/550/) });
  });

  it('two replicas polling one mailbox take each mail once, also when their polls overlap or UIDVALIDITY changes', async () => {
    const before = (await conversations()).meta.total;
    const burst = async (tag: string, n: number) => {
      for (let i = 0; i < n; i++) await dovecot.deliver(MAILBOX, await compose({ from: `${tag}${i}@example.org`, to: ADDRESS, subject: `${tag} ${i}`, messageId: `<${tag}-${i}@example.org>`, text: `${tag} mail ${i}` }));
    };
    // The worker of each replica: the mailbox is leased to one of them.
    await burst('lease', 6);
    await a.app.get(ChannelsService).pollSoon(channelId);
    const [na, nb] = await Promise.all([a.app.get(MailInWorker).drain(), b.app.get(MailInWorker).drain()]);
    expect(na + nb).toBeLessThanOrEqual(1); // one poll of the mailbox (or none: a worker's own loop had it)
    expect((await conversations()).meta.total).toBe(before + 6);

    // Polls that overlap (a lease that ran out while its replica was still reading): still once each.
    await burst('overlap', 8);
    await Promise.all([a.app.get(MailIn).poll(channelId), b.app.get(MailIn).poll(channelId), a.app.get(MailIn).poll(channelId)]);
    expect((await conversations()).meta.total).toBe(before + 14);

    // The server renumbered the mailbox (another UIDVALIDITY): the recent mail is read again, nothing is taken twice.
    await a.app.get(DataSource).query(`UPDATE ${a.config.DATABASE_SCHEMA}.channels SET imap_uidvalidity = imap_uidvalidity + 1 WHERE id = $1`, [channelId]);
    await burst('renumbered', 1);
    await poll(b);
    expect((await conversations()).meta.total).toBe(before + 15);
    const texts = (await conversations()).data.map((c: { contact: { email: string } }) => c.contact.email);
    expect(new Set(texts).size).toBe(texts.length - 1); // kim@ has two conversations; everyone else one
    expect((await channel()).status.mailbox.received).toBe(3 + 15);

    // A mail above CONVERSATION_EMAIL_MAX_BYTES (100 kB here): its header only, threaded and said so.
    await dovecot.deliver(MAILBOX, await compose({ from: 'big@example.org', to: ADDRESS, subject: 'Scan', messageId: '<big@example.org>', text: 'see attached', attachments: [{ filename: 'scan.bin', content: randomBytes(150_000) }] }));
    await poll();
    const big = (await conversations()).data.find((c: { contact: { email: string } }) => c.contact.email === 'big@example.org');
    const [bigMessage] = await messagesOf(big.id);
    expect(bigMessage).toMatchObject({ source_id: '<big@example.org>', attachments: [], content_attributes: { email: { subject: 'Scan' } } });
    expect(bigMessage.content).toMatch(/^\[The body of this mail \(\d+ bytes\) was not downloaded: it is larger than 100000 bytes\]$/);

    // Another mailbox (PATCH): its UIDs mean nothing for the old cursor, which starts over from the date window.
    const otherUid = await dovecot.deliver(OTHER_MAILBOX, await compose({ from: 'lead@example.org', to: ADDRESS, subject: 'Quote', messageId: '<quote@example.org>', text: 'Please send a quote.' }));
    await a.http.patch(`/api/v1/channels/${channelId}`).set(admin.auth).send({ imap: { ...settings().imap, user: OTHER_MAILBOX.user, password: OTHER_MAILBOX.password } }).expect(200);
    await poll();
    expect((await conversations()).data.map((c: { contact: { email: string } }) => c.contact.email)).toContain('lead@example.org');
    expect((await channel()).status.mailbox).toMatchObject({ last_uid: otherUid, last_error: null });
  });

  // Last: after a failed login Dovecot delays logins from the address for a few seconds (its auth penalty).
  it('reports refused credentials of both servers, and a failing poll in the channel status', async () => {
    const wrong = (await a.http.post('/api/v1/channels/email').set(admin.auth).send({ name: 'Wrong', email: 'wrong@example.com', ...settings({ imapPassword: 'nope', smtpPassword: 'nope' }) }).expect(201)).body.data;
    const failed = (await a.http.post(`/api/v1/channels/${wrong.id}/test`).set(admin.auth).expect(200)).body.data;
    expect(failed).toMatchObject({ ok: false, imap: { ok: false, error: expect.stringMatching(/IMAP: authentication failed/) }, smtp: { ok: false, error: expect.stringMatching(/^SMTP: 535/) } });
    // The wrong inbox's poll fails and says so in its status.
    await a.app.get(MailIn).poll(wrong.id);
    expect((await a.http.get(`/api/v1/channels/${wrong.id}`).set(admin.auth)).body.data.status.mailbox.last_error).toMatch(/authentication failed/);
  });
});
