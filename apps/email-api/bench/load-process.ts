// The tracking bench's load generator in a process of its own, as real mail clients are: neither the
// service nor the bare server shares its event loop with autocannon. Started with fork(); prints
// nothing, says `{ ready: true }`, then answers each
//   { url, amount, connections, headers } → { seconds, p99, statuses } (or { error })
// where `seconds` runs from the start to the last answer and `statuses` counts answers by status.

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

interface LoadRequest {
  url: string;
  amount: number;
  connections: number;
  headers: Record<string, string>;
}

process.on('message', (req: LoadRequest) => {
  const started = performance.now();
  let last = started;
  const run = autocannon({ url: req.url, method: 'GET', connections: req.connections, amount: req.amount, headers: req.headers }, (err, result) => {
    if (err) return void process.send!({ error: err.message });
    const statuses = Object.fromEntries(Object.entries(result.statusCodeStats).map(([status, s]) => [status, s.count]));
    process.send!({ seconds: (last - started) / 1000, p99: result.latency.p99, statuses });
  });
  run.on('response', () => (last = performance.now()));
});
process.send!({ ready: true });
