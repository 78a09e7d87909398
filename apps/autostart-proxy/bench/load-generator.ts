// A closed-loop HTTP load generator, run in its own process by the autostart-proxy bench so that it
// does not share the event loop of the proxy it measures (nor, in the pinned runs, its CPU):
// `connections` keep-alive connections each send the next GET as soon as the previous answer ended,
// for `requests` requests in all; every latency is timed with performance.now() (sub-millisecond),
// and the result is printed as one JSON line (with the first failure, if any).
//
//   node load-generator.js '{"url":"http://127.0.0.1:3007/x","headers":{"x-autostart-target":"a"},"connections":20,"requests":20000}'
import http from 'node:http';

interface LoadOptions {
  url: string;
  headers?: Record<string, string>;
  connections: number;
  requests: number;
}

export interface LoadResult {
  requests: number;
  errors: number;
  non2xx: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  /** the status and the start of the body of the first non-2xx answer, or the first error */
  firstFailure?: string;
}

async function run(o: LoadOptions): Promise<LoadResult> {
  const url = new URL(o.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.connections });
  const latencies = new Float64Array(o.requests);
  let sent = 0;
  let done = 0;
  let errors = 0;
  let non2xx = 0;
  let firstFailure: string | undefined;
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const started = performance.now();
      const req = http.request({ hostname: url.hostname, port: url.port, path: url.pathname + url.search, headers: o.headers, agent }, (res) => {
        const failed = (res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300;
        if (failed) non2xx++;
        let body = '';
        res.on('data', (c: Buffer) => {
          if (failed && !firstFailure && body.length < 300) body += c.toString();
        });
        res.on('end', () => {
          if (failed) firstFailure ??= `${res.statusCode}: ${body.slice(0, 300)}`;
          latencies[done++] = performance.now() - started;
          resolve();
        });
      });
      req.on('error', (err) => {
        errors++;
        firstFailure ??= err.message;
        latencies[done++] = performance.now() - started;
        resolve();
      });
      req.end();
    });
  const worker = async () => {
    while (sent < o.requests) {
      sent++;
      await one();
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: o.connections }, worker));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  const sorted = latencies.slice(0, done).sort();
  const pick = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  const mean = sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length);
  return { requests: done, errors, non2xx, seconds, perSecond: done / seconds, p50: pick(0.5), p90: pick(0.9), p99: pick(0.99), mean, firstFailure };
}

if (require.main === module) {
  run(JSON.parse(process.argv[2]) as LoadOptions).then(
    (result) => process.stdout.write(`${JSON.stringify(result)}\n`),
    (err: Error) => {
      process.stderr.write(`${err.stack ?? err.message}\n`);
      process.exit(1);
    },
  );
}
