// `npm run bench`: the scenarios of tools/bench/scenarios.ts on loopback, each app in its own process,
// measured in one run against a bare Node HTTP server, then the apps' own suites (tools/bench/suites.ts,
// each in a child process); prints the tables and writes dist/bench/results.json.
//   BENCH_DURATION (seconds per scenario, default 5), BENCH_WARMUP (default 1), BENCH_CONNECTIONS (default 10),
//   BENCH_PROBE (seconds of the single-connection latency probe per scenario, default 3; the scenarios'
//   probes run interleaved), BENCH_PROBE_ROUNDS (default 5), BENCH_PROBE_BURST (requests to one scenario
//   before the next one's turn, default 1: A B C A B C …),
//   BENCH_SUITE_TIMEOUT (seconds an app suite may take, default 240),
//   BENCH_ONLY (a substring: run only the matching scenarios, with what they compare with, the mixed load
//   when "mixed load" contains it, and app suites),
//   BENCH_MIXED_STAGES (connections per path of the mixed load's stages, default 1,2,4), BENCH_MIXED_SECONDS
//   (seconds per stage, default 10);
//   BENCH_SOAK=1 runs only the soak: the mixed load held for BENCH_SOAK_SECONDS (default 1800) in windows of
//   BENCH_SOAK_WINDOW seconds (default 60) at BENCH_SOAK_CONNECTIONS per path (default 2); exits 1 when a
//   service's memory (its V8 heap after a full collection, or what it holds outside the V8 heap) keeps
//   growing, a path's p99 drifts or a request fails (tools/bench/soak.ts)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fork } from 'node:child_process';
import {
  addRatios,
  formatMeasurements,
  formatTable,
  probeLatency,
  runScenario,
  scenarioMeasurements,
  type ScenarioResult,
} from './bench/harness';
import type { BenchMeasurement } from '@platform/bench';
import { formatMixedLoad, formatSoak, runMixedLoad, runSoak, type MixedLoadResult } from './bench/mixed-load';
import { BenchProcesses } from './bench/processes';
import { SCENARIOS } from './bench/scenarios';
import type { SuiteMessage } from './bench/suite-runner';
import { selectSuites, type AppSuite } from './bench/suites';

/** The workspace root: the nearest directory above this file holding tools/build.mjs (compiled under dist/out/tools). */
function workspaceRoot(): string {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'tools/build.mjs'))) return dir;
  }
  throw new Error('bench: cannot find the workspace root (tools/build.mjs) above ' + __dirname);
}
const root = workspaceRoot();

function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number (got "${raw}")`);
  return n;
}

/** BENCH_MIXED_STAGES: a comma-separated list of positive integers. */
function stages(): number[] {
  const raw = process.env.BENCH_MIXED_STAGES || '1,2,4';
  const list = raw.split(',').map((s) => Number(s.trim()));
  if (list.length === 0 || !list.every((n) => Number.isInteger(n) && n > 0)) throw new Error(`BENCH_MIXED_STAGES must list positive integers (got "${raw}")`);
  return list;
}

const log = (line: string) => process.stdout.write(`${line}\n`);

/** BENCH_SOAK=1: the soak alone; its verdict is the exit code. */
async function soak(): Promise<void> {
  const result = await runSoak({
    root,
    seconds: positive('BENCH_SOAK_SECONDS', 1800),
    windowSeconds: Math.max(1, positive('BENCH_SOAK_WINDOW', 60)),
    connections: Math.max(1, Math.floor(positive('BENCH_SOAK_CONNECTIONS', 2))),
    log,
  });
  const file = path.join(root, 'dist/bench/soak.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify({ date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, ...result }, null, 2)}\n`);
  process.stdout.write(`\n${formatSoak(result)}\nbench: soak windows written to ${path.relative(process.cwd(), file)}\n`);
  if (result.verdict.failures.length) process.exit(1);
}

async function main(): Promise<void> {
  if (process.env.BENCH_SOAK === '1') return soak();
  const opts = {
    duration: positive('BENCH_DURATION', 5),
    warmup: positive('BENCH_WARMUP', 1),
    connections: Math.max(1, Math.floor(positive('BENCH_CONNECTIONS', 10))),
    probe: positive('BENCH_PROBE', 3),
    probeRounds: Math.max(1, Math.floor(positive('BENCH_PROBE_ROUNDS', 5))),
    probeBurst: Math.max(1, Math.floor(positive('BENCH_PROBE_BURST', 1))),
  };
  const suiteTimeoutMs = positive('BENCH_SUITE_TIMEOUT', 240) * 1000;
  const only = process.env.BENCH_ONLY;
  let scenarios = SCENARIOS;
  if (only) {
    const picked = SCENARIOS.filter((s) => s.name.includes(only));
    const names = new Set(picked.flatMap((s) => [s.name, s.compareWith].filter((n): n is string => !!n)));
    scenarios = SCENARIOS.filter((s) => names.has(s.name));
  }
  const suites = selectSuites(only);
  const mixed = !only || 'mixed load'.includes(only);
  if (scenarios.length === 0 && suites.length === 0 && !mixed) throw new Error(`BENCH_ONLY="${only}" matches no scenario, no app suite and not the mixed load`);
  const processes = new BenchProcesses(root);
  const stopOnSignal = () => void processes.stop().finally(() => process.exit(130));
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);

  const results: ScenarioResult[] = [];
  try {
    await processes.start(scenarios.flatMap((s) => s.needs));
    for (const scenario of scenarios) {
      process.stdout.write(`bench: ${scenario.name} (${opts.duration} s × ${opts.connections} connections)\n`);
      results.push(await runScenario(scenario, processes, opts));
    }
    if (scenarios.length > 0 && opts.probe > 0) {
      process.stdout.write(
        `bench: one-caller latency, ${scenarios.length} scenarios interleaved (${opts.probeRounds} rounds, ${opts.probe * scenarios.length} s)\n`,
      );
      const probes = await probeLatency(
        scenarios.map((s) => ({ name: s.name, request: s.request(processes), expectStatus: s.expectStatus })),
        { seconds: opts.probe * scenarios.length, rounds: opts.probeRounds, burst: opts.probeBurst },
      );
      for (const r of results) {
        const p = probes.get(r.name)!;
        r.unloadedLatencyMs = { p50: p.p50, p99: p.p99, samples: p.samples, rounds: p.rounds };
        r.errors += p.errors;
      }
    }
  } finally {
    await processes.stop();
  }

  let mixedLoad: MixedLoadResult | undefined;
  if (mixed) {
    mixedLoad = await runMixedLoad({ root, stages: stages(), seconds: Math.max(1, positive('BENCH_MIXED_SECONDS', 10)), log });
    process.stdout.write(`\n${formatMixedLoad(mixedLoad)}\n\n`);
  }

  const suiteRuns: SuiteRun[] = [];
  for (const suite of suites) {
    process.stdout.write(`bench: app suite ${suite.name} (${suite.measures.join(', ')})\n`);
    const run = await runSuite(suite, suiteTimeoutMs);
    if (run.error) process.stderr.write(`bench: suite ${suite.name} failed after ${run.seconds.toFixed(1)} s:\n${run.error}\n${run.output}\n`);
    else process.stdout.write(`bench: suite ${suite.name} done in ${run.seconds.toFixed(1)} s\n`);
    suiteRuns.push(run);
  }

  const withRatios = addRatios(results);
  const measurements = [...scenarioMeasurements(withRatios), ...suiteRuns.flatMap((r) => r.measurements)];
  const failedSuites = suiteRuns.filter((r) => r.error !== undefined).map((r) => ({ name: r.name, error: r.error! }));
  if (withRatios.length) process.stdout.write(`\n${formatTable(withRatios)}\n`);
  if (measurements.length || failedSuites.length) process.stdout.write(`\n${formatMeasurements(measurements, failedSuites)}\n`);
  const direct = withRatios.find((r) => r.name === 'auth-api /healthz direct');
  const gateway = withRatios.find((r) => r.name === 'auth-api /healthz via gateway' && r.p50Ratio !== undefined);
  const bareProxy = withRatios.find((r) => r.name === 'auth-api /healthz via bare node:http proxy' && r.p50Ratio !== undefined);
  const meDirect = withRatios.find((r) => r.name === 'auth-api /auth/me direct');
  const meGateway = withRatios.find((r) => r.name === 'auth-api /auth/me via gateway' && r.p50Ratio !== undefined);
  if (gateway && direct) {
    const added = (r: ScenarioResult) => `${((r.unloadedLatencyMs.p50 - direct.unloadedLatencyMs.p50) * 1000).toFixed(0)} µs`;
    process.stdout.write(
      `\ngateway overhead: p50 latency +${((gateway.p50Ratio! - 1) * 100).toFixed(0)}% (+${added(gateway)}) for one caller (goal < 25%), ` +
        `throughput under load ${(gateway.throughputRatio! * 100).toFixed(0)}% of direct\n` +
        (bareProxy
          ? `a bare node:http proxy hop in the same run: p50 +${((bareProxy.p50Ratio! - 1) * 100).toFixed(0)}% (+${added(bareProxy)}), ` +
            `throughput ${(bareProxy.throughputRatio! * 100).toFixed(0)}% of direct\n`
          : ''),
    );
  }
  if (meGateway && meDirect) {
    const added = ((meGateway.unloadedLatencyMs.p50 - meDirect.unloadedLatencyMs.p50) * 1000).toFixed(0);
    process.stdout.write(
      `gateway overhead on a real endpoint (auth-api /me: token check and a database read): p50 +${((meGateway.p50Ratio! - 1) * 100).toFixed(0)}% ` +
        `(+${added} µs) for one caller, throughput under load ${(meGateway.throughputRatio! * 100).toFixed(0)}% of direct\n`,
    );
  }
  const broken = [
    ...withRatios.filter((r) => r.errors + r.timeouts + r.unexpectedStatus > 0 || r.requests === 0).map((r) => r.name),
    ...(mixedLoad?.stages.flatMap((s) => s.paths.filter((p) => p.failed > 0 || p.requests === 0).map((p) => `mixed load ${p.name} × ${s.connections}`)) ?? []),
  ];
  const file = path.join(root, 'dist/bench/results.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(
    file,
    `${JSON.stringify(
      {
        date: new Date().toISOString(),
        node: process.version,
        cpus: os.cpus().length,
        options: opts,
        results: withRatios,
        measurements,
        mixedLoad,
        suites: suiteRuns.map(({ name, seconds, error }) => ({ name, seconds, ok: error === undefined, error })),
      },
      null,
      2,
    )}\n`,
  );
  process.stdout.write(`bench: results written to ${path.relative(process.cwd(), file)}\n`);
  if (broken.length) {
    process.stderr.write(`bench: failed requests in ${broken.join(', ')}: the figures above are not valid\n`);
  }
  if (failedSuites.length) process.stderr.write(`bench: app suites failed: ${failedSuites.map((f) => f.name).join(', ')}\n`);
  if (broken.length || failedSuites.length) process.exit(1);
}

interface SuiteRun {
  name: string;
  seconds: number;
  measurements: BenchMeasurement[];
  error?: string;
  /** the end of the suite's output (shown when it fails) */
  output: string;
}

/** Runs one app suite in a child process (tools/bench/suite-runner.ts), killed after `timeoutMs`. */
function runSuite(suite: AppSuite, timeoutMs: number): Promise<SuiteRun> {
  const started = performance.now();
  const child = fork(require.resolve('./bench/suite-runner'), [suite.name], { cwd: root, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  let output = '';
  const keep = (c: Buffer) => (output = (output + c.toString()).slice(-4000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return new Promise((resolve) => {
    let message: SuiteMessage | undefined;
    const timer = setTimeout(() => {
      message = { error: `timed out after ${timeoutMs / 1000} s (BENCH_SUITE_TIMEOUT)` };
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('message', (m: SuiteMessage) => (message ??= m));
    child.on('error', (err) => (message ??= { error: err.message }));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const seconds = (performance.now() - started) / 1000;
      const m = message ?? { error: `exited with ${signal ?? `code ${code}`} before reporting` };
      resolve('error' in m ? { name: suite.name, seconds, measurements: [], error: m.error, output } : { name: suite.name, seconds, measurements: m.measurements, output });
    });
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
