import type { RateLimitDecision, RateLimiter } from '@platform/rate-limit';

/** What the sliding window needs to know of the two fixed windows it spans. */
export interface SlidingWindowState {
  /** Requests allowed in the previous aligned window. */
  previous: number;
  /** Requests allowed so far in the current aligned window (before this one). */
  current: number;
  /** How far into the current window we are, 0 ≤ elapsedMs < windowMs. */
  elapsedMs: number;
  windowMs: number;
  limit: number;
}

/**
 * The sliding-window counter (the estimate Cloudflare and others use): the previous aligned window's
 * count weighted by the part of it still inside the sliding window, plus the current window's
 * count. `budget` is how many requests the current window may hold now; `retryMs`, when a refused
 * client may try again (the weight of the previous window has decayed enough, or, when the current
 * window is itself full, that far into the next one).
 */
export function slidingWindow(s: SlidingWindowState): { budget: number; retryMs: number; resetMs: number } {
  const fraction = s.elapsedMs / s.windowMs;
  const budget = Math.max(0, Math.floor(s.limit - s.previous * (1 - fraction)));
  const resetMs = Math.max(1, s.windowMs - s.elapsedMs);
  let retryMs: number;
  if (s.current + 1 <= s.limit) {
    // within this window, once previous × (1 − f) ≤ limit − current − 1
    const needed = s.previous > 0 ? 1 - (s.limit - s.current - 1) / s.previous : 0;
    retryMs = Math.max(1, Math.ceil((needed - fraction) * s.windowMs));
  } else {
    // in the next window, once current × (1 − g) + 1 ≤ limit
    const needed = s.current > 0 ? 1 - (s.limit - 1) / s.current : 0;
    retryMs = Math.max(1, Math.ceil(resetMs + needed * s.windowMs));
  }
  return { budget, retryMs, resetMs };
}

/**
 * The per-project limit of the API: at most `limit` requests in any `windowMs` (one minute), as a
 * sliding window over two aligned fixed windows of the shared {@link RateLimiter} of
 * `@platform/rate-limit` (Redis when REDIS_URL is set, shared by every replica; in memory while
 * Redis fails, never failing open). A fixed window let up to twice the limit through around a
 * window boundary; the sliding estimate does not (the previous window still weighs on the
 * current one). Refused requests are not counted, so a client that backs off gets through again as
 * soon as the estimate allows.
 */
export class ProjectRateLimiter {
  constructor(
    private readonly limiter: RateLimiter,
    readonly limit: number,
    readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one request of `projectId` when the sliding window has room, and tells whether it did. */
  async hit(projectId: string): Promise<RateLimitDecision> {
    const t = this.now();
    const index = Math.floor(t / this.windowMs);
    const elapsedMs = t - index * this.windowMs;
    // Each aligned window's counter lives two windows, so that the next one still reads it.
    const keys = [`${projectId}:${index - 1}`, `${projectId}:${index}`];
    const ttl = 2 * this.windowMs;
    const [previous, current] = (await this.limiter.peekAll(keys.map((key) => ({ key, limit: this.limit })), ttl)).map((d) => this.limit - d.remaining);
    const window = slidingWindow({ previous, current, elapsedMs, windowMs: this.windowMs, limit: this.limit });
    const [counted] = await this.limiter.hitAll([{ key: keys[1], limit: window.budget }], ttl);
    if (!counted.allowed) return { allowed: false, limit: this.limit, remaining: 0, resetMs: window.retryMs };
    return { allowed: true, limit: this.limit, remaining: counted.remaining, resetMs: window.resetMs };
  }
}
