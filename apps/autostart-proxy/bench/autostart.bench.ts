/**
 * autostart-proxy benchmark for `npm run bench` (tools/bench.ts): the latency the proxy adds (p50,
 * p99) and its throughput, next to a direct call to the same upstream, measured in the same run with
 * the same load generator and concurrency.
 *
 * Three processes so that none takes CPU from another's measurement: the upstream (BARE_SERVER: a
 * bare Node HTTP server answering every path, /health included, in a child process), the load generator (./load-generator, in a child process), and the
 * proxy (this process: startService with a managed service whose workload runs in the fake Docker
 * engine, already healthy, so every measured request is proxied). Uses DATABASE_URL (a throwaway
 * schema, dropped afterwards) or the embedded PostgreSQL, as the service would.
 */
import { startService } from '@platform/platform';
import { freePort, startFakeDockerEngine, waitHealthy } from '@platform/testing';
import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { autostartProxyService } from '../src/service';
// eslint-disable-next-line @nx/enforce-module-boundaries -- benchmark code (never shipped) shares the harness's result type and helpers
import { BARE_PROXY, BARE_SERVER, dropBenchSchema, type BenchMeasurement } from '../../../tools/bench/measurement';
import type { LoadResult } from './load-generator';

const run = promisify(execFile);
const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;

export interface AutostartBenchOptions {
  /** Requests of each throughput run (default 20000). */
  requests?: number;
  /** Requests of each one-caller latency run (default 5000). */
  latencyRequests?: number;
  /** Concurrent connections (default 20). */
  connections?: number;
  databaseUrl?: string;
}

async function load(url: string, headers: Record<string, string>, connections: number, requests: number): Promise<LoadResult> {
  const { stdout } = await run(process.execPath, [join(__dirname, 'load-generator.js'), JSON.stringify({ url, headers, connections, requests })], { maxBuffer: 1 << 20 });
  const result = JSON.parse(stdout) as LoadResult;
  if (result.errors > 0 || result.non2xx > 0) throw new Error(`autostart-proxy bench: ${url} gave ${result.errors} errors and ${result.non2xx} non-2xx answers`);
  return result;
}

export async function runAutostartBench(opts: AutostartBenchOptions = {}): Promise<BenchMeasurement[]> {
  const requests = opts.requests ?? 20_000;
  const connections = opts.connections ?? 20;
  const latencyRequests = opts.latencyRequests ?? 5000;
  const databaseUrl = opts.databaseUrl ?? process.env.DATABASE_URL;
  const schema = `autostart_bench_${randomUUID().replace(/-/g, '').slice(0, 10)}`;
  const dir = await mkdtemp(join(tmpdir(), 'autostart-bench-'));
  const engine = await startFakeDockerEngine({ containers: [{ name: 'bench', state: 'running' }] });
  const port = await freePort();
  const upstreamUrl = `http://127.0.0.1:${port}`;
  let output = '';
  const upstream = spawn(process.execPath, ['-e', BARE_SERVER], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  upstream.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const barePort = await freePort();
  const bareUrl = `http://127.0.0.1:${barePort}`;
  const bare = spawn(process.execPath, ['-e', BARE_PROXY], { env: { ...process.env, PORT: String(barePort), UPSTREAM: upstreamUrl, PREFIX: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  bare.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  let service: Awaited<ReturnType<typeof startService>> | undefined;
  try {
    await waitHealthy('bench upstream', upstreamUrl, upstream, () => output);
    await waitHealthy('bench bare proxy', bareUrl, bare, () => output);
    const config = join(dir, 'services.yaml');
    await writeFile(config, `services:\n  - { name: bench, hosts: [bench.test], mode: async, upstream: '${upstreamUrl}', provider: docker, target: bench, healthCheck: /health }\n`);
    service = await startService(autostartProxyService, {
      port: 0,
      logger: false,
      env: {
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        DATA_DIR: dir,
        AUTOSTART_CONFIG: config,
        DOCKER_HOST: engine.dockerHost,
        ...(databaseUrl ? { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema } : {}),
      },
    });
    const target = { 'x-autostart-target': 'bench.test' };
    // The first request finds the workload healthy (engine + health check) and remembers it.
    const first = await fetch(`${service.url}/warm`, { headers: target });
    if (first.status !== 200) throw new Error(`autostart-proxy bench: the warm-up request answered ${first.status}: ${await first.text()}`);
    // Warm-up (JIT, pooled connections) of both paths, not counted.
    await load(`${upstreamUrl}/item`, {}, connections, 2000);
    await load(`${service.url}/item`, target, connections, 2000);
    // Latency with one caller (what a request pays for the extra hop, without queueing behind
    // others); throughput with `connections` callers. Direct and proxied alternate.
    const direct1 = await load(`${upstreamUrl}/item`, {}, 1, latencyRequests);
    const proxied1 = await load(`${service.url}/item`, target, 1, latencyRequests);
    await load(`${bareUrl}/item`, {}, connections, 2000);
    const directN = await load(`${upstreamUrl}/item`, {}, connections, requests);
    const proxiedN = await load(`${service.url}/item`, target, connections, requests);
    const bareN = await load(`${bareUrl}/item`, {}, connections, requests);
    const added = `added p50 ${round((proxied1.p50 - direct1.p50) * 1000, 0)} µs, p99 ${round((proxied1.p99 - direct1.p99) * 1000, 0)} µs; throughput ${round((100 * proxiedN.perSecond) / directN.perSecond, 1)} % of direct`;
    const latencyDetail = `${latencyRequests} GETs, one caller, load generator in its own process, through the proxy (running service) vs direct to the same upstream; ${added}`;
    return [
      {
        name: 'autostart-proxy: p50 latency',
        value: round(proxied1.p50),
        unit: 'ms',
        baseline: round(direct1.p50),
        ratio: round(proxied1.p50 / direct1.p50),
        detail: latencyDetail,
      },
      {
        name: 'autostart-proxy: p99 latency',
        value: round(proxied1.p99),
        unit: 'ms',
        baseline: round(direct1.p99),
        ratio: round(proxied1.p99 / direct1.p99),
        detail: latencyDetail,
      },
      {
        name: 'autostart-proxy: requests/s',
        value: round(proxiedN.perSecond, 1),
        unit: 'req/s',
        baseline: round(directN.perSecond, 1),
        ratio: round(proxiedN.perSecond / directN.perSecond),
        detail: `${requests} GETs, ${connections} connections, load generator in its own process, through the proxy vs direct; ${added}`,
      },
      {
        name: 'autostart-proxy: requests/s vs a bare proxy hop',
        value: round(proxiedN.perSecond, 1),
        unit: 'req/s',
        baseline: round(bareN.perSecond, 1),
        ratio: round(proxiedN.perSecond / bareN.perSecond),
        detail: `the same throughput run next to a bare node:http proxy (its own process, no routing, header rewriting, activity or metrics) in front of the same upstream: the floor of any proxy hop here (${round((100 * bareN.perSecond) / directN.perSecond, 1)} % of direct)`,
      },
    ];
  } finally {
    await service?.close();
    upstream.kill('SIGTERM');
    bare.kill('SIGTERM');
    await engine.close();
    if (databaseUrl) await dropBenchSchema(databaseUrl, schema);
    await rm(dir, { recursive: true, force: true });
  }
}
