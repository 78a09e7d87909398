// The email-api benches' load generator in a process of its own, as real clients are: neither the
// service nor its baseline shares its event loop with the load. Started with fork(); prints
// nothing, says `{ ready: true }`, then answers each request, one at a time:
//   { url, amount, connections, headers } → { seconds, p99, statuses } (or { error })
//     autocannon GETs; `seconds` runs from the start to the last answer, `statuses` counts answers
//     by status;
//   { kind: 'post', url, seconds, connections, headers, body } → { seconds, p99, average, statuses, bodies }
//     a closed loop of POSTs on `connections` keep-alive connections for `seconds`: each
//     connection sends its next request as soon as the previous one is answered, and sends none
//     after the time is up, so every request sent is answered and counted (none cut off in flight,
//     which a tally of stored rows against answers needs). `body` holds `[<id>]`, replaced by a
//     number unique to the run in every request; `bodies` gives the first few answers' bodies.

import { connect, type Socket } from 'node:net';

interface AutocannonResult {
  latency: { p99: number };
  statusCodeStats: Record<string, { count: number }>;
}
interface AutocannonInstance {
  on(event: 'response', listener: () => void): void;
}
type Autocannon = (opts: Record<string, unknown>, done: (err: Error | null, result: AutocannonResult) => void) => AutocannonInstance;
// autocannon ships no type declarations; the shape used here is declared above.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as Autocannon;

interface GetLoad {
  kind?: 'get';
  url: string;
  amount: number;
  connections: number;
  headers: Record<string, string>;
}

interface PostLoad {
  kind: 'post';
  url: string;
  seconds: number;
  connections: number;
  headers: Record<string, string>;
  body: string;
}

function getLoad(req: GetLoad): void {
  const started = performance.now();
  let last = started;
  const run = autocannon({ url: req.url, method: 'GET', connections: req.connections, amount: req.amount, headers: req.headers }, (err, result) => {
    if (err) return void process.send!({ error: err.message });
    const statuses = Object.fromEntries(Object.entries(result.statusCodeStats).map(([status, s]) => [status, s.count]));
    process.send!({ seconds: (last - started) / 1000, p99: result.latency.p99, statuses });
  });
  run.on('response', () => (last = performance.now()));
}

const HEAD_END = Buffer.from('\r\n\r\n');

/** One keep-alive connection sending `next()`'s requests one after the other until it answers null. */
function connection(host: string, port: number, next: () => Buffer | null, answered: (status: number, ms: number, body: Buffer) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(port, host);
    socket.setNoDelay(true);
    let buf: Buffer = Buffer.alloc(0);
    let sentAt = 0;
    const send = () => {
      const request = next();
      if (!request) return void socket.end();
      sentAt = performance.now();
      socket.write(request);
    };
    socket.on('connect', send);
    socket.on('data', (chunk: Buffer) => {
      buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
      const headEnd = buf.indexOf(HEAD_END);
      if (headEnd < 0) return;
      const head = buf.toString('latin1', 0, headEnd);
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
      const end = headEnd + 4 + length;
      if (buf.length < end) return;
      answered(Number(head.slice(9, 12)), performance.now() - sentAt, buf.subarray(headEnd + 4, end));
      buf = buf.subarray(end);
      send();
    });
    socket.on('error', reject);
    socket.on('close', () => resolve());
  });
}

async function postLoad(req: PostLoad): Promise<void> {
  const url = new URL(req.url);
  const head = `POST ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n${Object.entries({ 'content-type': 'application/json', ...req.headers })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}`;
  const [before, after] = req.body.split('[<id>]');
  let id = 0;
  const started = performance.now();
  const deadline = started + req.seconds * 1000;
  let last = started;
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const bodies: string[] = [];
  const next = () => {
    if (performance.now() >= deadline) return null;
    const body = after === undefined ? before : `${before}${++id}${after}`;
    return Buffer.from(`${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  };
  const answered = (status: number, ms: number, body: Buffer) => {
    last = performance.now();
    latencies.push(ms);
    statuses[status] = (statuses[status] ?? 0) + 1;
    if (bodies.length < 3) bodies.push(body.toString('utf8'));
  };
  await Promise.all(Array.from({ length: req.connections }, () => connection(url.hostname, Number(url.port), next, answered)));
  latencies.sort((a, b) => a - b);
  const p99 = latencies.length ? latencies[Math.min(latencies.length - 1, Math.ceil(0.99 * latencies.length) - 1)] : 0;
  const average = latencies.reduce((a, b) => a + b, 0) / Math.max(latencies.length, 1);
  process.send!({ seconds: (last - started) / 1000, p99, average, statuses, bodies });
}

process.on('message', (req: GetLoad | PostLoad) => {
  if (req.kind === 'post') postLoad(req).catch((err: Error) => process.send!({ error: err.message }));
  else getLoad(req);
});
process.send!({ ready: true });
