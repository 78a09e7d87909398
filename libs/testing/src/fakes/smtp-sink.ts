/**
 * A fake SMTP server for tests: a real `node:net` server on 127.0.0.1 (port 0) that speaks enough
 * ESMTP for nodemailer and most clients — EHLO/HELO, optional AUTH PLAIN/LOGIN, MAIL FROM, RCPT TO,
 * DATA (dot-unstuffed), RSET, NOOP, QUIT, several messages per connection — and records every
 * accepted message with its envelope, raw source and parsed headers. No TLS (STARTTLS is not
 * offered, so clients stay on plain text).
 *
 * ```ts
 * const smtp = await startFakeSmtpSink();                 // or { auth: { user: 'u', pass: 'p' } }
 * // SMTP_URL = smtp.url                                   // smtp://127.0.0.1:<port> (with credentials when auth is set)
 * const [message] = await smtp.waitForMessages(1);
 * message.headers['list-unsubscribe'];                     // header names lower-cased, folded lines joined
 * smtp.failNext({ code: 451, message: 'try later', times: 2 });   // refuse the next DATA commands
 * smtp.loseNextAnswer(); smtp.disconnectAll();             // an answer lost on the way; idle connections ended
 * smtp.reset(); await smtp.close();
 * ```
 */
import { createServer, type Server, type Socket } from 'node:net';

export interface SmtpMessage {
  /** Envelope sender (MAIL FROM). */
  from: string;
  /** Envelope recipients (RCPT TO). */
  to: string[];
  /** The message as received after DATA, dot-unstuffed, CRLF line ends. */
  raw: string;
  /** Header fields, names lower-cased, folded lines unfolded; a repeated field keeps its first value. */
  headers: Record<string, string>;
  /** Every header field in order. */
  headerList: Array<{ name: string; value: string }>;
  /** Everything after the header block. */
  body: string;
  /** `Subject` header, or ''. */
  subject: string;
  /** The user name the client authenticated with, if any. */
  authUser?: string;
  receivedAt: Date;
}

export interface FakeSmtpSinkOptions {
  /** Require AUTH (PLAIN or LOGIN) with these credentials before MAIL FROM. */
  auth?: { user: string; pass: string };
  /** Name in the greeting and EHLO answer. */
  hostname?: string;
  /** Largest accepted message in bytes (advertised as SIZE); default 30 MB. */
  maxMessageBytes?: number;
}

export interface SmtpFailure {
  /** SMTP reply code, e.g. 451 (temporary) or 550 (permanent). */
  code: number;
  message?: string;
  /** How many messages to refuse; default 1. */
  times?: number;
}

export interface FakeSmtpSink {
  /** `smtp://[user:pass@]127.0.0.1:<port>` */
  url: string;
  host: string;
  port: number;
  /** Accepted messages, oldest first. */
  readonly messages: SmtpMessage[];
  /** Commands received, in order (AUTH arguments redacted). */
  readonly commands: string[];
  /** Connections currently open. */
  readonly connections: number;
  /** Connections accepted since the start (or the last `reset`): tells a pooled client from one connecting per mail. */
  readonly connectionsOpened: number;
  /** Refuse the next message(s) at the end of DATA with this reply. */
  failNext(failure: SmtpFailure): void;
  /** Keep the next message but close its connection instead of answering it (an answer lost on the way). */
  loseNextAnswer(): void;
  /** End every open connection with `421` (as a server does with idle ones); the server goes on listening. */
  disconnectAll(): void;
  /** Resolves once at least `count` messages were accepted (rejects after `timeoutMs`, default 10 s). */
  waitForMessages(count: number, timeoutMs?: number): Promise<SmtpMessage[]>;
  reset(): void;
  close(): Promise<void>;
}

/** Splits a raw message into header fields and body. */
export function parseMessage(raw: string): Pick<SmtpMessage, 'headers' | 'headerList' | 'body' | 'subject'> {
  const normalized = raw.replace(/\r\n/g, '\n');
  const split = normalized.indexOf('\n\n');
  const head = split < 0 ? normalized : normalized.slice(0, split);
  const body = split < 0 ? '' : normalized.slice(split + 2);
  const headerList: Array<{ name: string; value: string }> = [];
  for (const line of head.split('\n')) {
    if (/^[ \t]/.test(line) && headerList.length) {
      const last = headerList[headerList.length - 1];
      last.value = last.value ? `${last.value} ${line.trim()}` : line.trim();
      continue;
    }
    const colon = line.indexOf(':');
    if (colon > 0) headerList.push({ name: line.slice(0, colon).trim(), value: line.slice(colon + 1).trim() });
  }
  const headers: Record<string, string> = {};
  for (const h of headerList) {
    const key = h.name.toLowerCase();
    if (!(key in headers)) headers[key] = h.value;
  }
  return { headers, headerList, body, subject: headers['subject'] ?? '' };
}

const address = (arg: string): string => {
  const match = /<([^>]*)>/.exec(arg);
  return (match ? match[1] : arg.split(/\s+/)[0] ?? '').trim();
};

export async function startFakeSmtpSink(options: FakeSmtpSinkOptions = {}): Promise<FakeSmtpSink> {
  const hostname = options.hostname ?? 'fake-smtp.test';
  const maxBytes = options.maxMessageBytes ?? 30 * 1024 * 1024;
  const messages: SmtpMessage[] = [];
  const commands: string[] = [];
  const sockets = new Set<Socket>();
  let connectionsOpened = 0;
  const waiters: Array<{ count: number; resolve: (m: SmtpMessage[]) => void }> = [];
  let failure: Required<SmtpFailure> | null = null;
  let loseAnswer = false;

  const notify = () => {
    for (const w of [...waiters]) {
      if (messages.length >= w.count) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(messages.slice());
      }
    }
  };

  // noDelay: a reply written right after another is not held back until the client ACKs the first
  // (with delayed ACKs that costs 40 ms per pipelined command on loopback, as a tuned MTA avoids).
  const server: Server = createServer({ noDelay: true }, (socket) => {
    sockets.add(socket);
    connectionsOpened++;
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.setEncoding('utf8');
    let buffer = '';
    let mode: 'command' | 'data' | 'auth-login-user' | 'auth-login-pass' | 'auth-plain' = 'command';
    let authUser: string | undefined;
    let pendingUser = '';
    let from: string | null = null;
    let to: string[] = [];
    let data = '';
    const reply = (line: string) => {
      if (!socket.destroyed) socket.write(`${line}\r\n`);
    };
    const resetTransaction = () => {
      from = null;
      to = [];
      data = '';
    };
    const checkCredentials = (user: string, pass: string) => {
      if (options.auth && user === options.auth.user && pass === options.auth.pass) {
        authUser = user;
        reply('235 2.7.0 Authentication successful');
      } else reply('535 5.7.8 Authentication credentials invalid');
    };
    const plain = (b64: string) => {
      const parts = Buffer.from(b64, 'base64').toString('utf8').split('\u0000');
      checkCredentials(parts[1] ?? '', parts[2] ?? '');
    };

    const finishData = () => {
      const raw = data.split('\r\n').map((l) => (l.startsWith('..') ? l.slice(1) : l)).join('\r\n');
      if (failure) {
        const f = failure;
        f.times -= 1;
        if (f.times <= 0) failure = null;
        reply(`${f.code} ${f.message}`);
      } else if (Buffer.byteLength(raw) > maxBytes) {
        reply('552 5.3.4 Message too big');
      } else {
        messages.push({ from: from ?? '', to: [...to], raw, ...parseMessage(raw), authUser, receivedAt: new Date() });
        if (loseAnswer) {
          loseAnswer = false;
          socket.destroy();
        } else reply(`250 2.0.0 OK queued as ${messages.length}`);
        notify();
      }
      resetTransaction();
      mode = 'command';
    };

    const handleLine = (line: string) => {
      if (mode === 'data') {
        if (line === '.') finishData();
        else data += (data ? '\r\n' : '') + line;
        return;
      }
      if (mode === 'auth-plain') {
        mode = 'command';
        plain(line.trim());
        return;
      }
      if (mode === 'auth-login-user') {
        pendingUser = Buffer.from(line.trim(), 'base64').toString('utf8');
        mode = 'auth-login-pass';
        reply(`334 ${Buffer.from('Password:').toString('base64')}`);
        return;
      }
      if (mode === 'auth-login-pass') {
        mode = 'command';
        checkCredentials(pendingUser, Buffer.from(line.trim(), 'base64').toString('utf8'));
        return;
      }
      const space = line.indexOf(' ');
      const verb = (space < 0 ? line : line.slice(0, space)).toUpperCase();
      const arg = space < 0 ? '' : line.slice(space + 1);
      commands.push(verb === 'AUTH' ? `AUTH ${arg.split(' ')[0]}` : line);
      switch (verb) {
        case 'EHLO':
          reply(`250-${hostname} greets ${arg || 'client'}`);
          reply(`250-SIZE ${maxBytes}`);
          reply('250-8BITMIME');
          reply('250-SMTPUTF8');
          if (options.auth) reply('250-AUTH PLAIN LOGIN');
          reply('250 PIPELINING');
          return;
        case 'HELO':
          reply(`250 ${hostname}`);
          return;
        case 'AUTH': {
          if (!options.auth) return reply('503 5.5.1 AUTH not offered');
          const [mech, initial] = arg.split(' ');
          if (mech?.toUpperCase() === 'PLAIN') {
            if (initial) plain(initial);
            else {
              mode = 'auth-plain';
              reply('334 ');
            }
          } else if (mech?.toUpperCase() === 'LOGIN') {
            if (initial) {
              pendingUser = Buffer.from(initial, 'base64').toString('utf8');
              mode = 'auth-login-pass';
              reply(`334 ${Buffer.from('Password:').toString('base64')}`);
            } else {
              mode = 'auth-login-user';
              reply(`334 ${Buffer.from('Username:').toString('base64')}`);
            }
          } else reply('504 5.5.4 Unrecognized authentication type');
          return;
        }
        case 'MAIL':
          if (options.auth && !authUser) return reply('530 5.7.0 Authentication required');
          if (!/^FROM:/i.test(arg)) return reply('501 5.5.4 Syntax: MAIL FROM:<address>');
          resetTransaction();
          from = address(arg.slice(5));
          reply('250 2.1.0 OK');
          return;
        case 'RCPT':
          if (from === null) return reply('503 5.5.1 MAIL first');
          if (!/^TO:/i.test(arg)) return reply('501 5.5.4 Syntax: RCPT TO:<address>');
          to.push(address(arg.slice(3)));
          reply('250 2.1.5 OK');
          return;
        case 'DATA':
          if (from === null || to.length === 0) return reply('503 5.5.1 RCPT first');
          mode = 'data';
          data = '';
          reply('354 End data with <CR><LF>.<CR><LF>');
          return;
        case 'RSET':
          resetTransaction();
          reply('250 2.0.0 OK');
          return;
        case 'NOOP':
          reply('250 2.0.0 OK');
          return;
        case 'QUIT':
          reply('221 2.0.0 Bye');
          socket.end();
          return;
        default:
          reply('502 5.5.2 Command not recognized');
      }
    };

    socket.on('data', (chunk: string) => {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl).replace(/\r$/, '');
        buffer = buffer.slice(nl + 1);
        handleLine(line);
      }
    });
    reply(`220 ${hostname} ESMTP fake sink`);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  const credentials = options.auth ? `${encodeURIComponent(options.auth.user)}:${encodeURIComponent(options.auth.pass)}@` : '';

  return {
    url: `smtp://${credentials}127.0.0.1:${port}`,
    host: '127.0.0.1',
    port,
    messages,
    commands,
    get connections() {
      return sockets.size;
    },
    get connectionsOpened() {
      return connectionsOpened;
    },
    failNext(f: SmtpFailure) {
      failure = { code: f.code, message: f.message ?? (f.code >= 500 ? '5.0.0 Rejected' : '4.0.0 Try again later'), times: f.times ?? 1 };
    },
    loseNextAnswer() {
      loseAnswer = true;
    },
    disconnectAll() {
      for (const s of sockets) {
        s.end(`421 4.4.2 ${hostname} closing the connection\r\n`);
        // what the client still sends is not read, as by a server that closed the connection
        s.removeAllListeners('data').resume();
      }
    },
    waitForMessages(count: number, timeoutMs = 10_000) {
      if (messages.length >= count) return Promise.resolve(messages.slice());
      return new Promise<SmtpMessage[]>((resolve, reject) => {
        const waiter = {
          count,
          resolve: (m: SmtpMessage[]) => {
            clearTimeout(timer);
            resolve(m);
          },
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`fake SMTP sink: ${messages.length} of ${count} messages after ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
    reset() {
      messages.length = 0;
      commands.length = 0;
      connectionsOpened = 0;
      failure = null;
      loseAnswer = false;
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
