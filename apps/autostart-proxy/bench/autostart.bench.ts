/**
 * autostart-proxy benchmark for `npm run bench` (tools/bench.ts): the latency the proxy adds (p50,
 * p99) and its throughput, next to a direct call to the same upstream, measured in the same run with
 * the same load generator and concurrency.
 *
 * The processes: the upstream (BARE_SERVER: a bare Node HTTP server answering every path, /health
 * included, in a child process), the load generator (./load-generator, a child process per run), the
 * proxy (this process: startService with a managed service whose workload runs in the fake Docker
 * engine, already healthy, so every measured request is proxied) and, as the floor of any proxy hop
 * on the machine, a bare node:http proxy (BARE_PROXY, a child process) in front of the same upstream.
 *
 * Throughput (`connections` callers) is measured twice, each time direct, through the proxy and
 * through the bare proxy:
 * - pinned, the goal figure: the load generator and the upstream on one CPU, the proxy (every thread
 *   of this process, `taskset -a -cp`) and the bare proxy on another; the direct run uses the same one
 *   CPU for load generator and upstream. A proxy is deployed like that (a pod or CPU of its own), and
 *   the ratio says whether it keeps up with the upstream without taking the upstream's CPU. Skipped,
 *   with the reason in the shared lines' detail, without taskset (util-linux) or with fewer than 2 CPUs.
 * - shared CPUs: no placement; load generator, upstream and proxy compete for every CPU, so the CPU
 *   the proxy spends is taken from the upstream and the load generator: what the proxy costs a
 *   machine it shares.
 * The throughput lines' detail also gives what the proxy spent itself during its run (this
 * process's CPU time, process.cpuUsage()): the share of a CPU it kept busy and the CPU a request.
 *
 * Latency (one caller) is measured without placement, and that is the honest "added latency one
 * caller sees". With one request in flight the processes take turns and never compete for a CPU, so
 * pinning removes no contention there; it only moves the direct path's load generator and upstream
 * onto one CPU (no cross-CPU wake-up: its p50 fell from about 0.14 to 0.09 ms when tried here) while
 * every hop of the proxied path crosses CPUs (about 0.37 ms either way), charging the placement to
 * the proxy. Unpinned, the scheduler places them as on any host.
 *
 * Uses DATABASE_URL (a throwaway schema, dropped afterwards) or the embedded PostgreSQL, as the
 * service would.
 */
import { startService } from '@platform/platform';
import { freePort, startFakeDockerEngine, waitHealthy } from '@platform/testing';
import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { autostartProxyService } from '../src/service';
import { BARE_PROXY, BARE_SERVER, dropBenchSchema, type BenchMeasurement } from '@platform/bench';
import type { LoadResult } from './load-generator';

const run = promisify(execFile);
const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;
const percent = (part: number, whole: number) => round((100 * part) / whole, 1);

export interface AutostartBenchOptions {
  /** Requests of each throughput run (default 20000). */
  requests?: number;
  /** Requests of each one-caller latency run (default 5000). */
  latencyRequests?: number;
  /** Concurrent connections (default 20). */
  connections?: number;
  databaseUrl?: string;
}

/** The CPUs of the pinned runs (taskset lists), or why they cannot run here. */
type Placement = { loadCpu: string; proxyCpu: string; allowed: string } | { skipped: string };

/** A taskset CPU list ("0-2,5") as numbers. */
function cpuList(list: string): number[] {
  return list.split(',').flatMap((part) => {
    const [from, to = from] = part.split('-').map(Number);
    return Array.from({ length: to - from + 1 }, (_, i) => from + i);
  });
}

/** The first two CPUs this process may run on: the load generator's and the proxy's. */
async function cpuPlacement(): Promise<Placement> {
  const cpus = availableParallelism();
  if (cpus < 2) return { skipped: `pinned runs skipped: ${cpus} CPU available (os.availableParallelism()), they need 2` };
  let stdout: string;
  try {
    ({ stdout } = await run('taskset', ['-cp', String(process.pid)]));
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return { skipped: `pinned runs skipped: ${e.code === 'ENOENT' ? 'taskset (util-linux) is not installed' : `taskset failed: ${e.message}`}` };
  }
  const allowed = stdout.slice(stdout.lastIndexOf(':') + 1).trim(); // "pid 42's current affinity list: 0,1"
  const [load, proxy] = cpuList(allowed);
  if (!Number.isInteger(load) || !Number.isInteger(proxy)) return { skipped: `pinned runs skipped: taskset gave no two CPUs ("${stdout.trim()}")` };
  return { loadCpu: String(load), proxyCpu: String(proxy), allowed };
}

/** Moves every thread of a running process to `cpus` (a taskset list). */
async function pin(pid: number, cpus: string): Promise<void> {
  await run('taskset', ['-a', '-cp', cpus, String(pid)]);
}

/** One run of the load generator (a process of its own), on the CPUs `cpus` when given; any error or non-2xx answer fails the run. */
export async function load(url: string, headers: Record<string, string>, connections: number, requests: number, cpus?: string): Promise<LoadResult> {
  const args = [join(__dirname, 'load-generator.js'), JSON.stringify({ url, headers, connections, requests })];
  const [command, ...rest] = cpus === undefined ? [process.execPath, ...args] : ['taskset', '-c', cpus, process.execPath, ...args];
  const { stdout } = await run(command, rest, { maxBuffer: 1 << 20 });
  const result = JSON.parse(stdout) as LoadResult;
  if (result.errors > 0 || result.non2xx > 0) throw new Error(`autostart-proxy bench: ${url} (${connections} connections${cpus === undefined ? '' : `, load generator on CPU ${cpus}`}) gave ${result.errors} errors and ${result.non2xx} non-2xx answers (the first: ${result.firstFailure})`);
  return result;
}

interface Throughput {
  direct: LoadResult;
  proxied: LoadResult;
  bare: LoadResult;
  /** CPU seconds this process (the proxy) spent during the proxied run */
  proxyCpuSeconds: number;
}

/** The two lines of one throughput placement: through the proxy vs direct, and vs the bare proxy hop. */
function throughputLines(placement: 'pinned' | 'shared CPUs', t: Throughput, requests: number, connections: number, how: string): BenchMeasurement[] {
  const proxied = round(t.proxied.perSecond, 1);
  return [
    {
      name: `autostart-proxy: requests/s, ${placement}`,
      value: proxied,
      unit: 'req/s',
      baseline: round(t.direct.perSecond, 1),
      ratio: round(t.proxied.perSecond / t.direct.perSecond),
      detail:
        `${requests} GETs, ${connections} connections, through the proxy vs direct to the same upstream (${percent(t.proxied.perSecond, t.direct.perSecond)} % of direct); ${how}; ` +
        `the proxy was busy ${percent(t.proxyCpuSeconds, t.proxied.seconds)} % of a CPU, ${round((t.proxyCpuSeconds / t.proxied.requests) * 1e6, 0)} µs of CPU a request`,
    },
    {
      name: `autostart-proxy: requests/s vs a bare proxy hop, ${placement}`,
      value: proxied,
      unit: 'req/s',
      baseline: round(t.bare.perSecond, 1),
      ratio: round(t.proxied.perSecond / t.bare.perSecond),
      detail: `the same runs next to a bare node:http proxy (its own process, placed like the proxy; no routing, header rewriting, activity or metrics) in front of the same upstream: the floor of any proxy hop here (${percent(t.bare.perSecond, t.direct.perSecond)} % of direct)`,
    },
  ];
}

export async function runAutostartBench(opts: AutostartBenchOptions = {}): Promise<BenchMeasurement[]> {
  const requests = opts.requests ?? 20_000;
  const connections = opts.connections ?? 20;
  const latencyRequests = opts.latencyRequests ?? 5000;
  const databaseUrl = opts.databaseUrl ?? process.env.DATABASE_URL;
  const schema = `autostart_bench_${randomUUID().replace(/-/g, '').slice(0, 10)}`;
  const placement = await cpuPlacement();
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
    const proxyUrl = service.url;
    const target = { 'x-autostart-target': 'bench.test' };
    // The first request finds the workload healthy (engine + health check) and remembers it.
    const first = await fetch(`${proxyUrl}/warm`, { headers: target });
    if (first.status !== 200) throw new Error(`autostart-proxy bench: the warm-up request answered ${first.status}: ${await first.text()}`);
    // Warm-up (JIT, pooled connections) of the three paths, not counted.
    await load(`${upstreamUrl}/item`, {}, connections, 2000);
    await load(`${proxyUrl}/item`, target, connections, 2000);
    await load(`${bareUrl}/item`, {}, connections, 2000);
    // Latency with one caller (what a request pays for the extra hop, without queueing behind
    // others), no CPU placement (see the header). Direct and proxied alternate.
    const direct1 = await load(`${upstreamUrl}/item`, {}, 1, latencyRequests);
    const proxied1 = await load(`${proxyUrl}/item`, target, 1, latencyRequests);
    // Throughput with `connections` callers: direct, through the proxy, through the bare proxy.
    const throughput = async (loadCpu?: string): Promise<Throughput> => {
      const direct = await load(`${upstreamUrl}/item`, {}, connections, requests, loadCpu);
      const cpu = process.cpuUsage();
      const proxied = await load(`${proxyUrl}/item`, target, connections, requests, loadCpu);
      const { user, system } = process.cpuUsage(cpu);
      return { direct, proxied, bare: await load(`${bareUrl}/item`, {}, connections, requests, loadCpu), proxyCpuSeconds: (user + system) / 1e6 };
    };
    const shared = await throughput();
    let pinned: BenchMeasurement[] = [];
    if (!('skipped' in placement)) {
      await pin(upstream.pid!, placement.loadCpu);
      await pin(bare.pid!, placement.proxyCpu);
      await pin(process.pid, placement.proxyCpu);
      try {
        const how = `load generator and upstream on CPU ${placement.loadCpu} (the direct run's too), the proxy on CPU ${placement.proxyCpu} (taskset): whether the proxy keeps up with the upstream on a CPU of its own, as deployed`;
        pinned = throughputLines('pinned', await throughput(placement.loadCpu), requests, connections, how);
      } finally {
        await pin(process.pid, placement.allowed);
      }
    }
    const latencyDetail = `${latencyRequests} GETs, one caller, no CPU placement, through the proxy (running service) vs direct to the same upstream; added p50 ${round((proxied1.p50 - direct1.p50) * 1000, 0)} µs, p99 ${round((proxied1.p99 - direct1.p99) * 1000, 0)} µs`;
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
      ...pinned,
      ...throughputLines(
        'shared CPUs',
        shared,
        requests,
        connections,
        `no CPU placement: load generator, upstream and proxy share ${availableParallelism() === 1 ? 'the one CPU' : `all ${availableParallelism()} CPUs`}, so the proxy's CPU is taken from the upstream and the load generator` +
          ('skipped' in placement ? `; ${placement.skipped}` : ''),
      ),
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
