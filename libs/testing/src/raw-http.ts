// Requests no well-behaved client sends, written byte for byte on a TCP connection: for the tests
// that check a raw node:http listener (a proxy's take-over server, its upgrade handler) answers them
// and keeps serving.
import net from 'node:net';

export interface RawAnswer {
  /** the status of the first response line, or 0 when the connection closed without one */
  status: number;
  /** everything received until the connection closed (or the deadline) */
  text: string;
}

/** Sends `raw` to host:port and collects what comes back until the server closes the connection or `timeoutMs` passes. */
export function sendRaw(port: number, raw: string | Buffer, timeoutMs = 3_000, host = '127.0.0.1'): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(port, host);
    const finish = (): void => {
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      resolve({ status: m ? Number(m[1]) : 0, text });
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.on('connect', () => socket.write(raw));
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      // One answer is all these tests want: stop once a complete head (and its announced body) is in.
      const text = Buffer.concat(chunks).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = text.slice(0, end);
      if (/^HTTP\/1\.[01] 101/.test(head)) return finish(); // a tunnel: its head is the answer
      const length = /\r\ncontent-length: *(\d+)/i.exec(head);
      if (length ? text.length - end - 4 >= Number(length[1]) : text.endsWith('\r\n0\r\n\r\n')) finish();
    });
    socket.on('error', finish);
    socket.on('close', finish);
  });
}

/**
 * Malformed requests for `path` (a route the listener handles, e.g. `/health/x` or `/auth/healthz`),
 * each named: broken percent-encodings, control and high bytes, absolute and asterisk forms, bad and
 * oversized headers, upgrades with every one of these. The listener may answer each with any 4xx
 * (Node's parser answers some itself with 400 or 431) or close the connection; it must never end the
 * process nor answer 500 for input.
 */
export function malformedRequests(path: string, host = 'localhost'): { name: string; raw: string }[] {
  const broken = ['%ED%A0%80', '%', '%zz', '%C0%AF', '%FF%FE', '%E0%80', '%00'];
  const requests: { name: string; raw: string }[] = [];
  const get = (target: string, headers = `Host: ${host}\r\n`) => `GET ${target} HTTP/1.1\r\n${headers}Connection: close\r\n\r\n`;
  const upgrade = (target: string) =>
    `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`;
  for (const b of broken) {
    requests.push({ name: `GET ${path}/${b}`, raw: get(`${path}/${b}`) });
    requests.push({ name: `GET ${path}?q=${b}`, raw: get(`${path}?q=${b}`) });
    requests.push({ name: `upgrade ${path}/${b}`, raw: upgrade(`${path}/${b}`) });
  }
  requests.push(
    { name: 'high bytes in the path', raw: get(`${path}/\u00ff\u00fe`) },
    { name: 'absolute form', raw: get(`http://${host}${path}`) },
    { name: 'asterisk form', raw: `OPTIONS * HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n` },
    { name: 'no Host header', raw: get(path, '') },
    { name: 'two Host headers', raw: get(path, `Host: ${host}\r\nHost: other.test\r\n`) },
    { name: 'an empty Host header', raw: get(path, 'Host: \r\n') },
    { name: 'a header without a colon', raw: get(path, `Host: ${host}\r\nbroken header\r\n`) },
    { name: 'a control byte in a header value', raw: get(path, `Host: ${host}\r\nX-Request-Id: a\u0001b\r\n`) },
    { name: 'an oversized header', raw: get(path, `Host: ${host}\r\nX-Big: ${'a'.repeat(20_000)}\r\n`) },
    { name: 'a bad Content-Length', raw: `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Length: abc\r\n\r\n` },
    { name: 'Content-Length and chunked together', raw: `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n` },
    { name: 'a broken chunk', raw: `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n` },
    { name: 'an upgrade without a key', raw: `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n` },
    { name: 'an upgrade to an unknown protocol', raw: `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n` },
    { name: 'garbage', raw: '\u0000\u0001\u0002 not http at all\r\n\r\n' },
  );
  return requests;
}

export interface SlowAnswer extends RawAnswer {
  /** bytes of `raw` written before the server answered or closed the connection */
  sent: number;
  /** true when the server closed the connection (before `timeoutMs`) */
  closed: boolean;
}

export interface SlowOptions {
  /** written at once on connect, before the slow part (the headers of a request whose body trickles) */
  head?: string;
  /** give up (and resolve) after this; default 5000 */
  timeoutMs?: number;
  host?: string;
}

/**
 * A slow client (slowloris): writes `opts.head` at once, then `raw` one byte every `intervalMs`, and
 * stops as soon as the server closes the connection (a server that waits for ever leaves it to
 * `timeoutMs`). `sent` counts the bytes of `raw` written.
 */
export function sendSlowly(port: number, raw: string, intervalMs: number, opts: SlowOptions = {}): Promise<SlowAnswer> {
  const { head, timeoutMs = 5_000, host = '127.0.0.1' } = opts;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(port, host);
    let sent = 0;
    let closed = false;
    let ticker: NodeJS.Timeout | undefined;
    const finish = (): void => {
      clearTimeout(timer);
      clearInterval(ticker);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      resolve({ status: m ? Number(m[1]) : 0, text, sent, closed });
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.on('connect', () => {
      if (head) socket.write(head);
      ticker = setInterval(() => {
        if (sent < raw.length && socket.writable) socket.write(raw[sent++]);
      }, intervalMs);
    });
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closed = true;
      finish();
    });
  });
}
