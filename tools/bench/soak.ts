// The verdict of a soak run (`BENCH_SOAK=1 npm run bench`): the mixed load held for a while, one
// window after another, each window's memory of every service and p99 of every path recorded.
// Memory is judged in two parts per service, each from the service's own `/metrics` at the window's
// end: the V8 heap used after its last full collection (what survived it: a leak of JavaScript
// objects), and resident memory outside the V8 heap (resident memory less the heap V8 holds:
// buffers, native libraries, the allocator's own). Resident memory as a whole is reported but not
// judged where those two are known: it swings with the heap V8 keeps committed for later (tens of MB
// from one window to the next in a busy service) while neither part grows. A part "keeps growing"
// when the medians of the run's thirds rise one after the other, the last third sits more than
// `growthLimit` above the first, and the rise goes on into the last third (it is more than a quarter
// of `growthLimit` above the middle one): a step early in the run that then stays flat (a heap that
// settled at its size) is not growth, a leak rises through the whole run. The heap is judged from the
// first window after the service's first full collection (it reports 0 before), when at least
// MIN_SOAK_WINDOWS follow. A service whose `/metrics` gave neither is judged on resident memory.
// Latency "drifts" when the last third's median p99 exceeds `driftLimit` times the first third's (or
// `floorMs`, whichever is larger). The first window is a warm-up (caches, pools, JIT) and is not
// judged.

export interface SoakWindow {
  /** seconds since the soak started, at the window's end */
  at: number;
  /** resident memory of each service (MB) at the window's end */
  rssMb: Record<string, number>;
  /** each service's V8 heap used after its last full collection (MB; its `/metrics`), 0 when it has none */
  heapMb: Record<string, number>;
  /** each service's resident memory outside the V8 heap (MB; resident less the heap's committed size, one `/metrics` scrape), 0 when unknown */
  nativeMb: Record<string, number>;
  /** each path's p99 latency (ms) in the window */
  p99Ms: Record<string, number>;
  /** each path's failed requests (socket errors, timeouts, unexpected statuses) in the window */
  errors: Record<string, number>;
}

export interface SoakLimits {
  /** growth of the last third over the first, as a fraction (default 0.1: 10 %) */
  growthLimit: number;
  /** p99 of the last third over the first (default 2×) */
  driftLimit: number;
  /** p99 below this is never drift (default 5 ms: loopback jitter) */
  floorMs: number;
}

/** The medians of a memory series' thirds, and whether it keeps growing. */
export interface MemoryTrend {
  firstMb: number;
  middleMb: number;
  lastMb: number;
  growing: boolean;
}

export interface SoakVerdict {
  /**
   * `heap` is null when fewer than MIN_SOAK_WINDOWS judged windows followed the service's first full
   * collection; `native` when the service did not report it in every judged window (then `rss` is judged)
   */
  memory: { service: string; rss: MemoryTrend; heap: MemoryTrend | null; native: MemoryTrend | null; growing: boolean }[];
  latency: { path: string; firstP99: number; lastP99: number; drifting: boolean }[];
  errors: { path: string; count: number }[];
  /** why the soak fails; empty when it passes */
  failures: string[];
  /** windows judged (the warm-up left out) */
  judged: number;
}

/** Windows needed after the warm-up: three thirds of at least two windows each. */
export const MIN_SOAK_WINDOWS = 6;

const DEFAULTS: SoakLimits = { growthLimit: 0.1, driftLimit: 2, floorMs: 5 };

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The medians of a series' first, middle and last thirds. */
function thirds(series: number[]): [number, number, number] {
  const n = series.length;
  const a = Math.floor(n / 3);
  const b = Math.floor((2 * n) / 3);
  return [median(series.slice(0, a)), median(series.slice(a, b)), median(series.slice(b))];
}

export function judgeSoak(windows: SoakWindow[], limits: Partial<SoakLimits> = {}): SoakVerdict {
  const { growthLimit, driftLimit, floorMs } = { ...DEFAULTS, ...limits };
  const judged = windows.slice(1);
  const failures: string[] = [];
  const errorTotals = new Map<string, number>();
  for (const w of windows) for (const [path, n] of Object.entries(w.errors)) errorTotals.set(path, (errorTotals.get(path) ?? 0) + n);
  const errors = [...errorTotals].map(([path, count]) => ({ path, count }));
  for (const e of errors.filter((e) => e.count > 0)) failures.push(`${e.path}: ${e.count} failed requests`);
  if (judged.length < MIN_SOAK_WINDOWS) {
    failures.push(`${judged.length} windows after the warm-up: at least ${MIN_SOAK_WINDOWS} are needed to judge growth and drift (run longer or use shorter windows)`);
    return { memory: [], latency: [], errors, failures, judged: judged.length };
  }
  const trend = (series: number[]): MemoryTrend => {
    const [firstMb, middleMb, lastMb] = thirds(series);
    const growing = firstMb < middleMb && middleMb < lastMb && lastMb > firstMb * (1 + growthLimit) && lastMb > middleMb * (1 + growthLimit / 4);
    return { firstMb, middleMb, lastMb, growing };
  };
  const thirdsMb = (t: MemoryTrend) => `${t.firstMb.toFixed(0)} → ${t.middleMb.toFixed(0)} → ${t.lastMb.toFixed(0)} MB over the run's thirds`;
  const memory = Object.keys(judged[0].rssMb).map((service) => {
    const rss = trend(judged.map((w) => w.rssMb[service] ?? 0));
    // The heap from the first window after the process's first full collection (0 until then).
    const heapSeries = judged.map((w) => w.heapMb[service] ?? 0);
    const since = heapSeries.findIndex((v) => v > 0);
    const heap = since >= 0 && heapSeries.length - since >= MIN_SOAK_WINDOWS ? trend(heapSeries.slice(since)) : null;
    const nativeSeries = judged.map((w) => w.nativeMb?.[service] ?? 0);
    const native = nativeSeries.every((v) => v > 0) ? trend(nativeSeries) : null;
    if (heap?.growing) failures.push(`${service}: heap after collection keeps growing (${thirdsMb(heap)})`);
    if (native?.growing) failures.push(`${service}: memory outside the V8 heap keeps growing (${thirdsMb(native)}): buffers or native memory`);
    const judgedRss = !native && rss.growing;
    if (judgedRss) failures.push(`${service}: resident memory keeps growing (${thirdsMb(rss)})`);
    return { service, rss, heap, native, growing: Boolean(heap?.growing) || Boolean(native?.growing) || judgedRss };
  });
  const latency = Object.keys(judged[0].p99Ms).map((path) => {
    const [first, , last] = thirds(judged.map((w) => w.p99Ms[path] ?? 0));
    const drifting = last > driftLimit * Math.max(first, floorMs);
    if (drifting) failures.push(`${path}: p99 drifted from ${first.toFixed(1)} to ${last.toFixed(1)} ms`);
    return { path, firstP99: first, lastP99: last, drifting };
  });
  return { memory, latency, errors, failures, judged: judged.length };
}
