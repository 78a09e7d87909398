import { assertLimit, assertWindow, decision, RateLimiter, slidingDecision, type RateLimitDecision, type RateLimitRule } from './rate-limiter';
import { alignedWindows, previousWeight, slidingBudget } from './sliding-window';

interface Window {
  count: number;
  resetAt: number;
}

export interface MemoryRateLimiterOptions {
  /** Clock (tests). */
  now?: () => number;
  /** How often expired windows are dropped, at most (default 60 s). */
  sweepEveryMs?: number;
}

/**
 * Counters in this process (REDIS_URL unset: one replica only). Memory stays bounded by the keys
 * seen within the last window: expired windows are pruned at most once per `sweepEveryMs`.
 */
export class MemoryRateLimiter extends RateLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly now: () => number;
  private readonly sweepEveryMs: number;
  private lastSweep = 0;

  constructor(options: MemoryRateLimiterOptions = {}) {
    super();
    this.now = options.now ?? Date.now;
    this.sweepEveryMs = options.sweepEveryMs ?? 60_000;
  }

  /** Number of live windows (bounded-memory checks). */
  get size(): number {
    return this.windows.size;
  }

  async hit(key: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
    assertLimit(limit);
    assertWindow(windowMs);
    const t = this.now();
    this.sweep(t);
    const w = this.window(key, t, windowMs);
    w.count += 1;
    return decision(limit, w.count, w.resetAt - t, w.count <= limit);
  }

  async hitAll(rules: readonly RateLimitRule[], windowMs: number): Promise<RateLimitDecision[]> {
    rules.forEach((r) => assertLimit(r.limit));
    assertWindow(windowMs);
    const t = this.now();
    this.sweep(t);
    const windows = rules.map((r) => this.window(r.key, t, windowMs));
    const within = rules.map((r, i) => windows[i].count < r.limit);
    if (within.every(Boolean)) for (const w of new Set(windows)) w.count += 1;
    return rules.map((r, i) => decision(r.limit, windows[i].count, windows[i].resetAt - t, within[i]));
  }

  async peekAll(rules: readonly RateLimitRule[], windowMs: number): Promise<RateLimitDecision[]> {
    rules.forEach((r) => assertLimit(r.limit));
    assertWindow(windowMs);
    const t = this.now();
    return rules.map((r) => {
      const w = this.windows.get(r.key);
      const live = w && w.resetAt > t ? w : { count: 0, resetAt: t + windowMs };
      return decision(r.limit, live.count, live.resetAt - t, live.count < r.limit);
    });
  }

  async hitSliding(key: string, limit: number, windowMs: number, at = this.now()): Promise<RateLimitDecision> {
    assertLimit(limit);
    assertWindow(windowMs);
    const t = this.now();
    this.sweep(t);
    const { previousKey, currentKey, elapsedMs } = alignedWindows(key, at, windowMs);
    const count = (k: string) => {
      const w = this.windows.get(k);
      return w && w.resetAt > t ? w.count : 0;
    };
    const previous = count(previousKey);
    let current = count(currentKey);
    const counted = current < slidingBudget(limit, previous, previousWeight(elapsedMs, windowMs));
    if (counted) {
      // An aligned window's counter lives until the end of the next one, which still reads it.
      const w = this.windows.get(currentKey);
      if (w && w.resetAt > t) w.count += 1;
      else this.windows.set(currentKey, { count: 1, resetAt: t + 2 * windowMs - elapsedMs });
      current += 1;
    }
    return slidingDecision(limit, windowMs, elapsedMs, previous, current, counted);
  }

  async ping(): Promise<void> {
    return undefined;
  }

  async close(): Promise<void> {
    this.windows.clear();
  }

  private window(key: string, t: number, windowMs: number): Window {
    let w = this.windows.get(key);
    if (!w || w.resetAt <= t) {
      w = { count: 0, resetAt: t + windowMs };
      this.windows.set(key, w);
    }
    return w;
  }

  private sweep(t: number): void {
    if (t - this.lastSweep < this.sweepEveryMs) return;
    this.lastSweep = t;
    for (const [key, w] of this.windows) if (w.resetAt <= t) this.windows.delete(key);
  }
}
