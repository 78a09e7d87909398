/**
 * email-api benchmark scenario for `npm run bench` (tools/bench.ts): `POST /v1/track` events per
 * second and p99 latency, next to a bare Node HTTP server answering the same request on loopback
 * (the baseline, measured in the same run with the same load generator and concurrency).
 *
 * Every request tracks an event for a new contact (unique email), so each one is a full write:
 * key lookup, rate-limit count, then contact upsert, event insert and outbox row in one statement
 * (its own transaction).
 * No event may be lost: the number of stored events must equal the number of 2xx answers, or the
 * scenario throws.
 *
 * Uses DATABASE_URL (a throwaway schema, dropped afterwards) or the embedded PostgreSQL, and
 * REDIS_URL for the rate-limit counters when set (else in memory), as the service would.
 */
import { startService } from '@platform/platform';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emailApiService } from '../src/service';
import { dropBenchSchema, type BenchMeasurement } from '@platform/bench';
import { benchEnv, benchProject, benchTag, json, round } from './bench-api';

export interface EmailTrackBenchOptions {
  /** Requests sent (default 3000). */
  requests?: number;
  /** Concurrent connections (default 20). */
  connections?: number;
  /** Default process.env.DATABASE_URL; embedded PostgreSQL when unset. */
  databaseUrl?: string;
  /** Default process.env.REDIS_URL; in-memory counters when unset. */
  redisUrl?: string;
}

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p90: number; p97_5: number; p99: number; average: number };
  duration: number;
  '2xx': number;
  non2xx: number;
  errors: number;
  timeouts: number;
}
/** Called with a callback, autocannon returns the running instance (an EventEmitter). */
interface AutocannonInstance {
  on(event: 'response', listener: () => void): void;
}
interface Autocannon {
  (opts: Record<string, unknown>): Promise<AutocannonResult>;
  (opts: Record<string, unknown>, done: (err: Error | null, result: AutocannonResult) => void): AutocannonInstance;
}
// autocannon ships no type declarations; the shape used here is declared above.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as Autocannon;


/** The baseline: a bare Node server that reads the JSON body and answers a small JSON envelope. */
async function startBareServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { email?: string };
      const json = JSON.stringify({ success: true, data: { contact: body.email ?? null, event: 'evt', timestamp: new Date().toISOString() } });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
      res.end(json);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

export async function runEmailTrackBench(opts: EmailTrackBenchOptions = {}): Promise<BenchMeasurement[]> {
  const requests = opts.requests ?? 3000;
  const connections = opts.connections ?? 20;
  const databaseUrl = opts.databaseUrl ?? process.env.DATABASE_URL;
  const redisUrl = opts.redisUrl ?? process.env.REDIS_URL;
  const schema = benchTag();
  const dataDir = await mkdtemp(join(tmpdir(), 'email-bench-'));
  const service = await startService(emailApiService, {
    port: 0,
    logger: false,
    env: {
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATA_DIR: dataDir,
      ...benchEnv(schema),
      ...(databaseUrl ? { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema } : {}),
      ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
    },
  });
  const bare = await startBareServer();
  try {
    const { project, auth } = await benchProject(service.url);

    // Timed here, from the start to the last response: with a fixed number of requests autocannon
    // finishes (and measures `duration`) on its once-a-second sampling tick, not at the last answer.
    const load = async (url: string, headers: Record<string, string>) => {
      const started = performance.now();
      let lastResponse = started;
      const result = await new Promise<AutocannonResult>((resolve, reject) => {
        const run = autocannon(
          {
            url,
            method: 'POST',
            connections,
            amount: requests,
            idReplacement: true,
            headers: { 'content-type': 'application/json', ...headers },
            body: JSON.stringify({ email: 'u-[<id>]@bench.test', event: 'bench_event', data: { plan: 'pro' } }),
          },
          (err, done) => (err ? reject(err) : resolve(done)),
        );
        run.on('response', () => (lastResponse = performance.now()));
      });
      return { ...result, seconds: (lastResponse - started) / 1000 };
    };

    const baseline = await load(`${bare.url}/v1/track`, {});
    // warm-up (connection pools, JIT), not counted
    await autocannon({
      url: `${service.url}/v1/track`,
      method: 'POST',
      connections,
      amount: 200,
      idReplacement: true,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${project.publicKey}` },
      body: JSON.stringify({ email: 'warm-[<id>]@bench.test', event: 'warmup' }),
    });
    const track = await load(`${service.url}/v1/track`, { authorization: `Bearer ${project.publicKey}` });

    const stats = (await json(`${service.url}/events/names`, { headers: auth })).body as Array<{ name: string; count: number }>;
    const stored = stats.find((s) => s.name === 'bench_event')?.count ?? 0;
    if (stored !== track['2xx']) {
      throw new Error(`email-api bench lost events: ${track['2xx']} requests answered 2xx, ${stored} events stored`);
    }
    if (track.non2xx > 0 || track.errors > 0) {
      throw new Error(`email-api bench: ${track.non2xx} non-2xx answers and ${track.errors} errors out of ${requests}`);
    }
    const perSecond = track['2xx'] / track.seconds;
    const basePerSecond = baseline['2xx'] / baseline.seconds;
    return [
      {
        name: 'email-api: /v1/track events/s',
        value: round(perSecond),
        unit: 'events/s',
        baseline: round(basePerSecond),
        ratio: round(perSecond / basePerSecond, 3),
        detail: `${requests} tracks of new contacts, ${connections} connections, ${databaseUrl ? 'PostgreSQL' : 'embedded PostgreSQL'}, ${redisUrl ? 'Redis' : 'in-memory'} rate limit; ${stored} events stored = ${track['2xx']} answered 2xx (none lost)`,
      },
      {
        name: 'email-api: /v1/track p99 latency',
        value: round(track.latency.p99),
        unit: 'ms',
        baseline: round(baseline.latency.p99),
        ratio: round(track.latency.p99 / Math.max(baseline.latency.p99, 0.1), 3),
        detail: `p99 of the same run (average ${round(track.latency.average)} ms, p50 ${track.latency.p50}, p90 ${track.latency.p90}, p97.5 ${track.latency.p97_5}) vs a bare Node server answering the same JSON`,
      },
    ];
  } finally {
    await bare.close();
    await service.close();
    if (databaseUrl) await dropBenchSchema(databaseUrl, schema);
    await rm(dataDir, { recursive: true, force: true });
  }
}
