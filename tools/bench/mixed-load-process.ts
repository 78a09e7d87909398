// The mixed load's generator, in a process of its own (forked by tools/bench/mixed-load.ts): for each
// message it runs one autocannon instance per path at once for the given seconds and answers each
// path's requests/s, p50/p99 and failed requests. Stays up for the next window until disconnected.
import type { AutocannonLike, LoadPath, LoadResult, LoadWindow } from './mixed-load-types';

// autocannon ships no type declarations; the few fields used are typed in mixed-load-types.ts.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as AutocannonLike;

async function runPath(path: LoadPath, connections: number, seconds: number): Promise<LoadResult> {
  const r = await autocannon({
    url: path.url,
    method: path.method,
    headers: path.headers,
    body: path.bodyBase64 ? Buffer.from(path.bodyBase64, 'base64') : path.body,
    idReplacement: path.body?.includes('[<id>]') ?? false,
    connections,
    duration: seconds,
    timeout: 10,
  });
  const expected = new Set(path.expect.map(String));
  const unexpected = Object.entries(r.statusCodeStats ?? {})
    .filter(([code]) => !expected.has(code))
    .reduce((n, [, s]) => n + s.count, 0);
  return {
    name: path.name,
    service: path.service,
    requestsPerSecond: r.requests.total / seconds,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    requests: r.requests.total,
    failed: r.errors + r.timeouts + unexpected,
    statuses: Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([code, s]) => [code, s.count])),
  };
}

process.on('message', (window: LoadWindow) => {
  Promise.all(window.paths.map((p) => runPath(p, window.connections, window.seconds))).then(
    (results) => process.send!({ results }),
    (err: unknown) => process.send!({ error: err instanceof Error ? err.message : String(err) }),
  );
});
process.on('disconnect', () => process.exit(0));
