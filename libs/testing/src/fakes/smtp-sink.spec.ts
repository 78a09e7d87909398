import nodemailer from 'nodemailer';
import { connect } from 'node:net';
import { parseMessage, startFakeSmtpSink, type FakeSmtpSink } from './smtp-sink';

describe('fake SMTP sink', () => {
  let smtp: FakeSmtpSink;
  afterEach(() => smtp?.close());

  it('receives mail from nodemailer with envelope, raw source and parsed headers', async () => {
    smtp = await startFakeSmtpSink();
    const transport = nodemailer.createTransport(smtp.url);
    await transport.sendMail({
      from: '"Sender" <from@example.com>',
      to: ['a@example.com', 'b@example.com'],
      subject: 'Hello there',
      html: '<p>Hi</p>\n.\nlast line',
      headers: { 'List-Unsubscribe': '<https://example.com/u/1>', 'X-Long': 'x'.repeat(200) },
      attachments: [{ filename: 'a.txt', content: 'attached' }],
    });
    transport.close();
    const [message] = await smtp.waitForMessages(1);
    expect(message.from).toBe('from@example.com');
    expect(message.to).toEqual(['a@example.com', 'b@example.com']);
    expect(message.subject).toBe('Hello there');
    expect(message.headers['list-unsubscribe']).toBe('<https://example.com/u/1>');
    expect(message.headers['x-long']).toBe('x'.repeat(200));
    expect(message.raw).toContain('Content-Disposition: attachment; filename=a.txt');
    expect(smtp.commands.some((c) => c.startsWith('EHLO'))).toBe(true);
    expect(smtp.connectionsOpened).toBe(1);
  });

  it('counts the connections opened: a pooled client reuses its few, one without a pool opens one per mail', async () => {
    smtp = await startFakeSmtpSink();
    const send = (t: ReturnType<typeof nodemailer.createTransport>, n: number) =>
      Promise.all(Array.from({ length: n }, (_, i) => t.sendMail({ from: 'f@example.com', to: `t${i}@example.com`, subject: 's', text: 'x' })));
    const pooled = nodemailer.createTransport({ url: smtp.url, pool: true, maxConnections: 2 });
    await send(pooled, 20);
    pooled.close();
    expect(smtp.connectionsOpened).toBe(2);
    smtp.reset();
    const single = nodemailer.createTransport(smtp.url);
    await send(single, 5);
    single.close();
    expect(smtp.connectionsOpened).toBe(5);
  });

  it('requires AUTH when configured and accepts PLAIN and LOGIN', async () => {
    smtp = await startFakeSmtpSink({ auth: { user: 'u@x', pass: 'p w' } });
    for (const method of ['PLAIN', 'LOGIN']) {
      const transport = nodemailer.createTransport({ host: smtp.host, port: smtp.port, secure: false, auth: { user: 'u@x', pass: 'p w', method } } as object);
      await transport.sendMail({ from: 'f@example.com', to: 't@example.com', subject: method, text: 'x' });
      transport.close();
    }
    expect(smtp.messages.map((m) => [m.subject, m.authUser])).toEqual([
      ['PLAIN', 'u@x'],
      ['LOGIN', 'u@x'],
    ]);
    const wrong = nodemailer.createTransport({ host: smtp.host, port: smtp.port, secure: false, auth: { user: 'u@x', pass: 'nope' } } as object);
    await expect(wrong.sendMail({ from: 'f@example.com', to: 't@example.com', subject: 's', text: 'x' })).rejects.toThrow(/535|Invalid login/i);
    wrong.close();
    // the URL carries the credentials
    const viaUrl = nodemailer.createTransport(smtp.url);
    await viaUrl.sendMail({ from: 'f@example.com', to: 't@example.com', subject: 'url', text: 'x' });
    viaUrl.close();
    expect(smtp.messages).toHaveLength(3);
  });

  it('refuses the next messages when told to, with the given code', async () => {
    smtp = await startFakeSmtpSink();
    smtp.failNext({ code: 451, times: 1 });
    const transport = nodemailer.createTransport(smtp.url);
    await expect(transport.sendMail({ from: 'f@example.com', to: 't@example.com', subject: 's', text: 'x' })).rejects.toMatchObject({ responseCode: 451 });
    await transport.sendMail({ from: 'f@example.com', to: 't@example.com', subject: 'ok', text: 'x' });
    transport.close();
    expect(smtp.messages.map((m) => m.subject)).toEqual(['ok']);
  });

  it('keeps a message whose answer it was told to lose, and closes that connection instead of answering', async () => {
    smtp = await startFakeSmtpSink();
    smtp.loseNextAnswer();
    const transport = nodemailer.createTransport(smtp.url);
    await expect(transport.sendMail({ from: 'f@example.com', to: 't@example.com', subject: 'lost answer', text: 'x' })).rejects.toMatchObject({ code: expect.stringMatching(/ECONNECTION|ESOCKET/) });
    await transport.sendMail({ from: 'f@example.com', to: 't@example.com', subject: 'answered', text: 'x' });
    transport.close();
    expect(smtp.messages.map((m) => m.subject)).toEqual(['lost answer', 'answered']);
  });

  it('ends every open connection with 421 when told to, and goes on accepting new ones', async () => {
    smtp = await startFakeSmtpSink();
    const socket = connect(smtp.port, '127.0.0.1');
    let received = '';
    socket.on('data', (d) => (received += d));
    await new Promise<void>((resolve) => socket.once('data', () => resolve()));
    const ended = new Promise<void>((resolve) => socket.once('end', () => resolve()));
    smtp.disconnectAll();
    await ended;
    socket.destroy();
    expect(received).toMatch(/\r\n421 4\.4\.2 /);
    const transport = nodemailer.createTransport(smtp.url);
    await transport.sendMail({ from: 'f@example.com', to: 't@example.com', subject: 'after', text: 'x' });
    transport.close();
    expect(smtp.messages).toHaveLength(1);
  });

  it('speaks the protocol: sequencing errors, RSET, unknown commands, dot-unstuffing', async () => {
    smtp = await startFakeSmtpSink();
    const socket = connect(smtp.port, '127.0.0.1');
    socket.setEncoding('utf8');
    let received = '';
    socket.on('data', (d: string) => (received += d));
    const until = async (text: string) => {
      for (let i = 0; i < 200 && !received.includes(text); i++) await new Promise((r) => setTimeout(r, 5));
      expect(received).toContain(text);
    };
    await until('220 ');
    socket.write('HELO me\r\nRCPT TO:<x@example.com>\r\nFOO\r\nMAIL FROM:<a@example.com>\r\nRSET\r\nDATA\r\n');
    await until('503 5.5.1 RCPT first');
    expect(received).toContain('503 5.5.1 MAIL first');
    expect(received).toContain('502 5.5.2');
    socket.write('MAIL FROM:<a@example.com>\r\nRCPT TO:<b@example.com>\r\nDATA\r\nSubject: dots\r\n\r\n..leading dot\r\n.\r\nQUIT\r\n');
    await until('221 ');
    socket.destroy();
    expect(smtp.messages[0].body).toBe('.leading dot');
    expect(parseMessage('A: 1\r\n b\r\nA: 2\r\n\r\nbody').headers).toEqual({ a: '1 b' });
  });
});
