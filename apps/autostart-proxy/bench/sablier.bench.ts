/**
 * Sablier's API for `npm run bench`: what the dynamic and blocking strategy calls cost on a warm
 * session (the instance ready, the call renews its session), as the Traefik, Caddy and nginx plugins
 * make them for every request they pass, next to a bare node:http server answering the same size of
 * JSON in the same run (BARE_SERVER, its own process): the floor of any HTTP answer on this machine.
 * Sablier publishes 1.5–1.8 ms p50 and about 5,000–5,700 req/s on a laptop; the goal here is under
 * 0.5 ms added p50. Latency: one caller, 3,000 GETs; throughput: 20 connections, 10,000 GETs; no CPU
 * placement (load generator, proxy and baseline share the CPUs). Each load-generator run is a process
 * of its own (./load-generator). Uses DATABASE_URL (a throwaway schema) or the embedded PostgreSQL.
 */
import { startService } from '@platform/platform';
import { freePort, startFakeDockerEngine, waitHealthy } from '@platform/testing';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { autostartProxyService } from '../src/service';
import { BARE_SERVER, dropBenchSchema, type BenchMeasurement } from '@platform/bench';
import { load } from './autostart.bench';

const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;

export async function runSablierBench(opts: { requests?: number; latencyRequests?: number; connections?: number; databaseUrl?: string } = {}): Promise<BenchMeasurement[]> {
  const requests = opts.requests ?? 10_000;
  const latencyRequests = opts.latencyRequests ?? 3_000;
  const connections = opts.connections ?? 20;
  const databaseUrl = opts.databaseUrl ?? process.env.DATABASE_URL;
  const schema = `autostart_bench_${randomUUID().replace(/-/g, '').slice(0, 10)}`;
  const dir = await mkdtemp(join(tmpdir(), 'sablier-bench-'));
  const engine = await startFakeDockerEngine({ containers: [{ name: 'bench', state: 'running' }] });
  const port = await freePort();
  const bareUrl = `http://127.0.0.1:${port}`;
  let output = '';
  const bare = spawn(process.execPath, ['-e', BARE_SERVER], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  bare.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  let service: Awaited<ReturnType<typeof startService>> | undefined;
  try {
    await waitHealthy('bench bare server', bareUrl, bare, () => output);
    const config = join(dir, 'services.yaml');
    // The bare server is also the managed service's upstream: its health check answers 200.
    await writeFile(config, `services:\n  - { name: bench, hosts: [bench.test], mode: dynamic, upstream: '${bareUrl}', provider: docker, target: bench, healthCheck: /health }\n`);
    service = await startService(autostartProxyService, {
      port: 0,
      logger: false,
      env: { NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: dir, AUTOSTART_CONFIG: config, DOCKER_HOST: engine.dockerHost, ...(databaseUrl ? { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema } : {}) },
    });
    const calls = {
      dynamic: `${service.url}/api/strategies/dynamic?names=bench&session_duration=5m&theme=ghost`,
      blocking: `${service.url}/api/strategies/blocking?names=bench&session_duration=5m&timeout=10s`,
    };
    // The session is warm: the first blocking call finds the workload healthy and remembers it.
    const first = await fetch(calls.blocking);
    if (first.status !== 200) throw new Error(`Sablier bench: the first blocking call answered ${first.status}: ${await first.text()}`);
    await load(`${bareUrl}/x`, {}, connections, 2000);
    for (const url of Object.values(calls)) await load(url, {}, connections, 2000);
    const lines: BenchMeasurement[] = [];
    for (const [strategy, url] of Object.entries(calls)) {
      const direct1 = await load(`${bareUrl}/x`, {}, 1, latencyRequests);
      const one = await load(url, {}, 1, latencyRequests);
      const direct = await load(`${bareUrl}/x`, {}, connections, requests);
      const many = await load(url, {}, connections, requests);
      const added = `added p50 ${round((one.p50 - direct1.p50) * 1000, 0)} µs (goal under 500 µs; Sablier publishes 1.5–1.8 ms p50 in all), p99 ${round((one.p99 - direct1.p99) * 1000, 0)} µs`;
      const detail = `${latencyRequests} GETs ${strategy} strategy on a warm session, one caller, vs a bare node:http server in the same run; ${added}`;
      lines.push(
        { name: `autostart-proxy: Sablier ${strategy} p50 latency`, value: round(one.p50), unit: 'ms', baseline: round(direct1.p50), ratio: round(one.p50 / direct1.p50), detail },
        { name: `autostart-proxy: Sablier ${strategy} p99 latency`, value: round(one.p99), unit: 'ms', baseline: round(direct1.p99), ratio: round(one.p99 / direct1.p99), detail },
        {
          name: `autostart-proxy: Sablier ${strategy} requests/s`,
          value: round(many.perSecond, 1),
          unit: 'req/s',
          baseline: round(direct.perSecond, 1),
          ratio: round(many.perSecond / direct.perSecond),
          detail: `${requests} GETs, ${connections} connections, no CPU placement, vs the bare node:http server (Sablier publishes about 5,000–5,700 req/s on a laptop)`,
        },
      );
    }
    return lines;
  } finally {
    await service?.close();
    bare.kill('SIGTERM');
    await engine.close();
    if (databaseUrl) await dropBenchSchema(databaseUrl, schema);
    await rm(dir, { recursive: true, force: true });
  }
}
