// Runs each scenario with autocannon (bounded: a short warm-up, then a fixed duration) for requests/s
// and latency under load (autocannon's histogram has 1 ms resolution), then a single-connection probe
// of all scenarios interleaved for the latency one caller sees at sub-millisecond resolution; prints
// a table with each scenario's ratio to the one it is compared with, and one table of every figure
// (scenarios and the apps' own suites) next to its baseline.
import http from 'node:http';
import type { BenchMeasurement } from '@platform/bench';
import type { BenchTargets } from './processes';
import type { Scenario } from './scenarios';

export interface BenchOptions {
  /** seconds measured per scenario */
  duration: number;
  /** seconds of warm-up per scenario (not measured) */
  warmup: number;
  connections: number;
  /** seconds of the single-connection latency probe (all scenarios interleaved) per scenario */
  probe: number;
  /** rounds the probe is split into */
  probeRounds: number;
  /** requests sent to one scenario before the next one's turn in the probe */
  probeBurst: number;
}

export interface ScenarioResult {
  name: string;
  url: string;
  requestsPerSecond: number;
  /** under load (autocannon, `connections` concurrent; 1 ms resolution) */
  latencyMs: { p50: number; p90: number; p99: number; average: number; max: number };
  /**
   * one request at a time over a keep-alive connection, timed with the high-resolution clock,
   * interleaved with the other scenarios' probes (probeLatency): p50 is the median of the rounds' p50s
   */
  unloadedLatencyMs: { p50: number; p99: number; samples: number; rounds: number[] };
  requests: number;
  errors: number;
  timeouts: number;
  unexpectedStatus: number;
  compareWith?: string;
  /** this scenario's unloaded p50 latency divided by the compared one's (median of the per-round ratios) */
  p50Ratio?: number;
  /** this scenario's requests/s divided by the compared one's */
  throughputRatio?: number;
}

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p90: number; p99: number; average: number; max: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats?: Record<string, { count: number }>;
}

type Autocannon = (opts: Record<string, unknown>) => Promise<AutocannonResult>;
// autocannon ships no type declarations; the few fields used are typed above.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as Autocannon;

export async function runScenario(scenario: Scenario, targets: BenchTargets, opts: BenchOptions): Promise<ScenarioResult> {
  const req = scenario.request(targets);
  const base = { url: req.url, method: req.method ?? 'GET', headers: req.headers, body: req.body, connections: opts.connections };
  if (opts.warmup > 0) await autocannon({ ...base, duration: opts.warmup });
  const r = await autocannon({ ...base, duration: opts.duration });
  const expected = String(scenario.expectStatus ?? 200);
  const unexpectedStatus = Object.entries(r.statusCodeStats ?? {})
    .filter(([code]) => code !== expected)
    .reduce((n, [, s]) => n + s.count, 0);
  return {
    name: scenario.name,
    url: req.url,
    requestsPerSecond: r.requests.average,
    latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, average: r.latency.average, max: r.latency.max },
    unloadedLatencyMs: { p50: 0, p99: 0, samples: 0, rounds: [] },
    requests: r.requests.total,
    errors: r.errors,
    timeouts: r.timeouts,
    unexpectedStatus,
    compareWith: scenario.compareWith,
  };
}

type ProbeRequest = { url: string; method?: string; headers?: Record<string, string>; body?: string };

function timedRequest(req: ProbeRequest, agent: http.Agent): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const r = http.request(req.url, { method: req.method ?? 'GET', headers: req.headers, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
    });
    r.on('error', reject);
    r.end(req.body);
  });
}

const quantile = (sorted: number[], q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : 0);
const median = (values: number[]) => quantile([...values].sort((a, b) => a - b), 0.5);

/**
 * The latency one caller sees, at sub-millisecond resolution (performance.now()): one request at a
 * time per target, each target over its own keep-alive connection, and the targets interleaved
 * (A B C A B C …, or `burst` requests per turn, at most 1000) so that whatever else the machine does affects all of them alike. After a warm-up,
 * `rounds` rounds of `seconds / rounds` each; a target's p50 is the median of its per-round p50s,
 * and each round's p50s are kept so that ratios can be taken round by round (addRatios).
 */
export async function probeLatency(
  targets: { name: string; request: ProbeRequest; expectStatus?: number }[],
  opts: { seconds: number; rounds: number; burst?: number; warmupRequests?: number },
): Promise<Map<string, { p50: number; p99: number; samples: number; rounds: number[]; errors: number }>> {
  const agents = targets.map(() => new http.Agent({ keepAlive: true, maxSockets: 1 }));
  const all = targets.map(() => [] as number[]);
  const perRound = targets.map(() => [] as number[]);
  const errors = targets.map(() => 0);
  const rounds = Math.max(1, Math.floor(opts.rounds));
  const burst = Math.min(1000, Math.max(1, Math.floor(opts.burst ?? 1)));
  try {
    for (let i = 0; i < (opts.warmupRequests ?? 200); i++) {
      for (let t = 0; t < targets.length; t++) await timedRequest(targets[t].request, agents[t]);
    }
    for (let round = 0; round < rounds; round++) {
      const samples = targets.map(() => [] as number[]);
      const end = performance.now() + (opts.seconds * 1000) / rounds;
      while (performance.now() < end) {
        for (let t = 0; t < targets.length; t++) {
          for (let i = 0; i < burst; i++) {
            const { status, ms } = await timedRequest(targets[t].request, agents[t]);
            if (status !== (targets[t].expectStatus ?? 200)) errors[t]++;
            samples[t].push(ms);
          }
        }
      }
      samples.forEach((s, t) => {
        s.sort((a, b) => a - b);
        perRound[t].push(quantile(s, 0.5));
        all[t].push(...s);
      });
    }
  } finally {
    for (const agent of agents) agent.destroy();
  }
  return new Map(
    targets.map((target, t) => {
      const sorted = all[t].sort((a, b) => a - b);
      return [target.name, { p50: median(perRound[t]), p99: quantile(sorted, 0.99), samples: sorted.length, rounds: perRound[t], errors: errors[t] }];
    }),
  );
}

/** Fills the ratios of each result to the result it is compared with. */
export function addRatios(results: ScenarioResult[]): ScenarioResult[] {
  const byName = new Map(results.map((r) => [r.name, r]));
  return results.map((r) => {
    const other = r.compareWith ? byName.get(r.compareWith) : undefined;
    if (!other) return r;
    const mine = r.unloadedLatencyMs.rounds;
    const theirs = other.unloadedLatencyMs.rounds;
    const p50Ratio =
      mine.length > 0 && mine.length === theirs.length && theirs.every((v) => v > 0)
        ? median(mine.map((v, i) => v / theirs[i]))
        : other.unloadedLatencyMs.p50 > 0
          ? r.unloadedLatencyMs.p50 / other.unloadedLatencyMs.p50
          : undefined;
    return {
      ...r,
      p50Ratio,
      throughputRatio: other.requestsPerSecond > 0 ? r.requestsPerSecond / other.requestsPerSecond : undefined,
    };
  });
}

export function formatTable(results: ScenarioResult[]): string {
  const header = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'p50 ms 1-conn', 'p99 ms 1-conn', 'errors', 'vs', 'p50 ratio', 'req/s ratio'];
  const rows = results.map((r) => [
    r.name,
    r.requestsPerSecond.toFixed(0),
    r.latencyMs.p50.toFixed(0),
    r.latencyMs.p99.toFixed(0),
    r.unloadedLatencyMs.p50.toFixed(3),
    r.unloadedLatencyMs.p99.toFixed(3),
    String(r.errors + r.timeouts + r.unexpectedStatus),
    r.compareWith ?? '',
    r.p50Ratio !== undefined ? `${r.p50Ratio.toFixed(2)}×` : '',
    r.throughputRatio !== undefined ? `${r.throughputRatio.toFixed(2)}×` : '',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 || i === 7 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(header), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** The compared scenarios as measurements: one-caller p50 latency and requests/s, each against its baseline. */
export function scenarioMeasurements(results: ScenarioResult[]): BenchMeasurement[] {
  const byName = new Map(results.map((r) => [r.name, r]));
  return results.flatMap((r): BenchMeasurement[] => {
    const other = r.compareWith ? byName.get(r.compareWith) : undefined;
    if (!other) return [];
    const out: BenchMeasurement[] = [];
    if (r.p50Ratio !== undefined) {
      out.push({
        name: `${r.name}: p50 latency, 1 caller`,
        value: round(r.unloadedLatencyMs.p50, 3),
        unit: 'ms',
        baseline: round(other.unloadedLatencyMs.p50, 3),
        ratio: round(r.p50Ratio, 3),
        detail: `median of ${r.unloadedLatencyMs.rounds.length} interleaved rounds' p50 (${r.unloadedLatencyMs.samples} samples) vs ${other.name}`,
      });
    }
    if (r.throughputRatio !== undefined) {
      out.push({
        name: `${r.name}: req/s`,
        value: round(r.requestsPerSecond),
        unit: 'req/s',
        baseline: round(other.requestsPerSecond),
        ratio: round(r.throughputRatio, 3),
        detail: `autocannon, ${r.requests} requests vs ${other.name}`,
      });
    }
    return out;
  });
}

function round(n: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** One table of measurements with their baselines and ratios; failed suites as rows of their own. */
export function formatMeasurements(measurements: BenchMeasurement[], failed: { name: string; error: string }[] = []): string {
  const header = ['measurement', 'value', 'baseline', 'ratio', 'unit'];
  const rows = [
    ...measurements.map((m) => [m.name, String(m.value), String(m.baseline), `${m.ratio.toFixed(3)}×`, m.unit]),
    ...failed.map((f) => [f.name, 'FAILED', '', '', f.error.split('\n')[0].slice(0, 100)]),
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 || i === 4 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(header), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
