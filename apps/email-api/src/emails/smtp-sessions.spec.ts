import { startFakeSmtpSink, startTcpProxy, type FakeSmtpSink } from '@platform/testing';
import { DeliveryError, SmtpSessions } from './smtp-sessions';

const raw = (subject: string) => Buffer.from(`From: f@example.com\r\nTo: t@example.com\r\nSubject: ${subject}\r\n\r\nHello\r\n.leading dot\r\n`);
const envelope = { from: 'f@example.com', to: ['t@example.com'] };
const recorded = (endData: () => void) => Promise.resolve().then(endData);

describe('SmtpSessions', () => {
  let smtp: FakeSmtpSink;
  let sessions: SmtpSessions;
  const open = (size = 2, url = smtp.url) => (sessions = new SmtpSessions({ url, size, connectionTimeout: 2000, greetingTimeout: 2000, socketTimeout: 5000 }));
  beforeEach(async () => {
    smtp = await startFakeSmtpSink();
  });
  afterEach(async () => {
    sessions?.close();
    await smtp.close();
  });

  it('delivers concurrent mails over at most `size` connections, reused', async () => {
    open(2);
    const responses = await Promise.all(Array.from({ length: 12 }, (_, i) => sessions.deliver(envelope, raw(`m${i}`), recorded)));
    expect(responses.every((r) => r.startsWith('250'))).toBe(true);
    expect(smtp.messages.map((m) => m.subject).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `m${i}`).sort());
    expect(smtp.messages[0].body).toContain('.leading dot');
    expect(smtp.connectionsOpened).toBe(2);
    expect(sessions.connections).toBe(2);
  });

  it('holds the end of the data until handOver calls endData: the server has not accepted the mail before', async () => {
    open(1);
    let seenDuringHandOver = -1;
    await sessions.deliver(envelope, raw('held'), async (endData) => {
      await new Promise((r) => setTimeout(r, 50));
      seenDuringHandOver = smtp.messages.length;
      endData();
    });
    expect(seenDuringHandOver).toBe(0);
    expect(smtp.messages.map((m) => m.subject)).toEqual(['held']);
  });

  it('never ends the data when handOver rejects: the server drops the mail', async () => {
    open(1);
    const failure = await sessions.deliver(envelope, raw('dropped'), () => Promise.reject(new Error('the record did not commit'))).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(DeliveryError);
    expect(failure).toMatchObject({ message: expect.stringContaining('the record did not commit'), uncertain: false, responseCode: undefined });
    await sessions.deliver(envelope, raw('next'), recorded);
    expect(smtp.messages.map((m) => m.subject)).toEqual(['next']);
  });

  it('calls a mail uncertain when its record failed after the data was ended (the server has it)', async () => {
    open(1);
    const failure = await sessions
      .deliver(envelope, raw('recorded?'), async (endData) => {
        endData();
        throw Object.assign(new Error('the COMMIT failed after it was sent'), { commitSent: true });
      })
      .catch((e: unknown) => e);
    expect(failure).toMatchObject({ uncertain: true, message: 'the COMMIT failed after it was sent' });
    expect(smtp.messages.map((m) => m.subject)).toEqual(['recorded?']);
  });

  it('does not end the data on a connection that died while the hand-over was recorded: not sent, not uncertain', async () => {
    const proxy = await startTcpProxy({ host: smtp.host, port: smtp.port });
    try {
      open(1, proxy.rewriteUrl(smtp.url));
      const failure = await sessions
        .deliver(envelope, raw('cut'), async (endData) => {
          await proxy.cut();
          await new Promise((r) => setTimeout(r, 50));
          endData();
        })
        .catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(DeliveryError);
      expect(failure).toMatchObject({ uncertain: false });
      expect(smtp.messages).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it('reports a refusal with its code (the server does not have the mail) and goes on', async () => {
    open(1);
    smtp.failNext({ code: 550, message: '5.1.1 no such user' });
    await expect(sessions.deliver(envelope, raw('refused'), recorded)).rejects.toMatchObject({ responseCode: 550, uncertain: false });
    smtp.failNext({ code: 451 });
    await expect(sessions.deliver(envelope, raw('later'), recorded)).rejects.toMatchObject({ responseCode: 451, uncertain: false });
    await sessions.deliver(envelope, raw('accepted'), recorded);
    expect(smtp.messages.map((m) => m.subject)).toEqual(['accepted']);
  });

  it('calls a connection lost after the end of the data uncertain: the server may have the mail', async () => {
    open(1);
    smtp.loseNextAnswer();
    await expect(sessions.deliver(envelope, raw('answer lost'), recorded)).rejects.toMatchObject({ uncertain: true, responseCode: undefined });
    expect(smtp.messages.map((m) => m.subject)).toEqual(['answer lost']);
    await sessions.deliver(envelope, raw('after'), recorded);
    expect(smtp.messages).toHaveLength(2);
  });

  it('replaces connections the server closed while idle, without failing the mail', async () => {
    open(2);
    await Promise.all([sessions.deliver(envelope, raw('a'), recorded), sessions.deliver(envelope, raw('b'), recorded)]);
    smtp.disconnectAll();
    await new Promise((r) => setTimeout(r, 50));
    await Promise.all([sessions.deliver(envelope, raw('c'), recorded), sessions.deliver(envelope, raw('d'), recorded)]);
    // and at once, while the connections are still being closed
    smtp.disconnectAll();
    await Promise.all([sessions.deliver(envelope, raw('e'), recorded), sessions.deliver(envelope, raw('f'), recorded)]);
    expect(smtp.messages.map((m) => m.subject).sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(smtp.connectionsOpened).toBe(6);
  });

  it('authenticates with the credentials of the URL when the server offers AUTH', async () => {
    await smtp.close();
    smtp = await startFakeSmtpSink({ auth: { user: 'mailer', pass: 's3cret' } });
    open(1);
    await sessions.deliver(envelope, raw('authenticated'), recorded);
    expect(smtp.messages[0].authUser).toBe('mailer');
    sessions.close();
    open(1, `smtp://mailer:wrong@127.0.0.1:${smtp.port}`);
    await expect(sessions.deliver(envelope, raw('refused'), recorded)).rejects.toMatchObject({ responseCode: 535 });
  });

  it('refuses deliveries once closed', async () => {
    open(1);
    sessions.close();
    await expect(sessions.deliver(envelope, raw('late'), recorded)).rejects.toThrow(/closed/);
  });
});
