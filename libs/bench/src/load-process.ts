// A bench's load generator in a process of its own (forked by LoadProcess, load-generator.ts):
// neither the service nor the baseline server shares its event loop with the client. Prints
// nothing, says `{ ready: true }`, then answers each job, one at a time (or `{ error }`):
//   { kind: 'list', base, requests: [{ method, path, body?, headers? }], concurrency } → { seconds, statuses }
//     every request once over `concurrency` kept-alive connections; `seconds` runs from the first
//     request to the last answer and `statuses` counts the answers by status;
//   { kind: 'get', url, amount, connections, headers } → { seconds, p99, statuses }
//     `amount` GETs by autocannon; `seconds` runs from the start to the last answer;
//   { kind: 'post', url, seconds, connections, headers, body } → { seconds, p99, average, statuses, bodies }
//     a closed loop of POSTs on `connections` keep-alive connections for `seconds`: each connection
//     sends its next request as soon as the previous one is answered, and sends none after the time
//     is up, so every request sent is answered and counted (none cut off in flight, which a tally of
//     stored rows against answers needs). `body` holds `[<id>]`, replaced by a number unique to the
//     run in every request; `bodies` gives the first few answers' bodies.
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import type { GetLoadResult, LoadJob, LoadRequest, LoadResult, PostLoadResult } from './load-generator';

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

const agent = new Agent({ keepAlive: true, maxSockets: 256 });

function send(base: string, r: LoadRequest): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers = r.body === undefined ? (r.headers ?? {}) : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(r.body)), ...r.headers };
    const req = request(`${base}${r.path}`, { method: r.method, agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(r.body);
  });
}

async function list(job: Extract<LoadJob, { kind: 'list' }>): Promise<LoadResult> {
  const statuses: Record<string, number> = {};
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(job.concurrency, job.requests.length) }, async () => {
      while (next < job.requests.length) {
        const status = await send(job.base, job.requests[next++]);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1000, statuses };
}

function get(job: Extract<LoadJob, { kind: 'get' }>): Promise<GetLoadResult> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let last = started;
    const run = autocannon({ url: job.url, method: 'GET', connections: job.connections, amount: job.amount, headers: job.headers }, (err, result) => {
      if (err) return reject(err);
      const statuses = Object.fromEntries(Object.entries(result.statusCodeStats).map(([status, s]) => [status, s.count]));
      resolve({ seconds: (last - started) / 1000, p99: result.latency.p99, statuses });
    });
    run.on('response', () => (last = performance.now()));
  });
}

const HEAD_END = Buffer.from('\r\n\r\n');

/** One keep-alive connection sending `next()`'s requests one after the other until it answers null. */
function connection(host: string, port: number, next: () => Buffer | null, answered: (status: number, ms: number, body: Buffer) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, host);
    socket.setNoDelay(true);
    let buf: Buffer = Buffer.alloc(0);
    let sentAt = 0;
    const sendNext = () => {
      const request = next();
      if (!request) return void socket.end();
      sentAt = performance.now();
      socket.write(request);
    };
    socket.on('connect', sendNext);
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
      sendNext();
    });
    socket.on('error', reject);
    socket.on('close', () => resolve());
  });
}

async function post(job: Extract<LoadJob, { kind: 'post' }>): Promise<PostLoadResult> {
  const url = new URL(job.url);
  const head = `POST ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n${Object.entries({ 'content-type': 'application/json', ...job.headers })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}`;
  const [before, after] = job.body.split('[<id>]');
  let id = 0;
  const started = performance.now();
  const deadline = started + job.seconds * 1000;
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
  await Promise.all(Array.from({ length: job.connections }, () => connection(url.hostname, Number(url.port), next, answered)));
  latencies.sort((a, b) => a - b);
  const p99 = latencies.length ? latencies[Math.min(latencies.length - 1, Math.ceil(0.99 * latencies.length) - 1)] : 0;
  const average = latencies.reduce((a, b) => a + b, 0) / Math.max(latencies.length, 1);
  return { seconds: (last - started) / 1000, p99, average, statuses, bodies };
}

const handle = (job: LoadJob): Promise<LoadResult> => (job.kind === 'get' ? get(job) : job.kind === 'post' ? post(job) : list(job));

process.on('message', (job: LoadJob) => {
  handle(job).then(
    (result) => process.send!(result),
    (err: unknown) => process.send!({ error: (err as Error).message }),
  );
});
process.send!({ ready: true });
