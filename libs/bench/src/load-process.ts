// A bench's load generator in a process of its own (forked by LoadProcess, load-generator.ts):
// neither the service nor the baseline server shares its event loop with the client. Prints
// nothing, says `{ ready: true }`, then answers each
//   { base, requests: [{ method, path, body?, headers? }], concurrency } → { seconds, statuses } (or { error })
// sending every request once over `concurrency` kept-alive connections; `seconds` runs from the
// first request to the last answer and `statuses` counts the answers by status.
import { Agent, request } from 'node:http';
import type { LoadRequest, LoadResult } from './load-generator';

interface LoadRun {
  base: string;
  requests: LoadRequest[];
  concurrency: number;
}

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

async function run(job: LoadRun): Promise<LoadResult> {
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

process.on('message', (job: LoadRun) => {
  run(job).then(
    (result) => process.send!(result),
    (err: unknown) => process.send!({ error: (err as Error).message }),
  );
});
process.send!({ ready: true });
