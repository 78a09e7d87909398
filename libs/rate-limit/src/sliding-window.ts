/** What the sliding window needs to know of the two aligned fixed windows it spans. */
export interface SlidingWindowState {
  /** Requests counted in the previous aligned window. */
  previous: number;
  /** Requests counted so far in the current aligned window (before this one). */
  current: number;
  /** How far into the current window we are, 0 ≤ elapsedMs < windowMs. */
  elapsedMs: number;
  windowMs: number;
  limit: number;
}

/**
 * The sliding-window counter (the estimate Cloudflare and others use): the previous aligned window's
 * count weighted by the part of it still inside the sliding window, plus the current window's count.
 * `budget` is how many requests the current window may hold now; `retryMs`, when a refused client may
 * try again (the weight of the previous window has decayed enough, or, when the current window is
 * itself full, that far into the next one); `resetMs`, when the current aligned window ends.
 */
export function slidingWindow(s: SlidingWindowState): { budget: number; retryMs: number; resetMs: number } {
  const budget = slidingBudget(s.limit, s.previous, previousWeight(s.elapsedMs, s.windowMs));
  const fraction = s.elapsedMs / s.windowMs;
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

/** The part of the previous aligned window still inside the sliding one (1 − elapsed / window). */
export function previousWeight(elapsedMs: number, windowMs: number): number {
  return 1 - elapsedMs / windowMs;
}

/** How many requests the current aligned window may hold (what the Redis script computes the same way). */
export function slidingBudget(limit: number, previous: number, weight: number): number {
  return Math.max(0, Math.floor(limit - previous * weight));
}

/** The aligned window `at` falls in, how far into it, and the counter keys of it and the one before. */
export function alignedWindows(key: string, at: number, windowMs: number): { previousKey: string; currentKey: string; elapsedMs: number } {
  const index = Math.floor(at / windowMs);
  return { previousKey: `${key}:${index - 1}`, currentKey: `${key}:${index}`, elapsedMs: at - index * windowMs };
}
