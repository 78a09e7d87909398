import { slidingWindow } from './sliding-window';

/** One counted request on one key. */
export interface RateLimitDecision {
  /** The key was within its limit: this request is allowed (as far as this key is concerned). */
  allowed: boolean;
  limit: number;
  /** Requests left in the window after this one (0 when refused). */
  remaining: number;
  /** Milliseconds until the key's window resets (at least 1). */
  resetMs: number;
}

/** One key and its limit, for {@link RateLimiter.hitAll}. */
export interface RateLimitRule {
  key: string;
  limit: number;
}

/**
 * Fixed windows per key: a window starts at the key's first request after the previous one ended
 * and lasts `windowMs`. The port both apps use; adapters: {@link RedisRateLimiter} (shared by every
 * replica) and {@link MemoryRateLimiter} (one process).
 */
export abstract class RateLimiter {
  /** Counts one request on `key` (refused ones too) and tells whether it is within `limit`. */
  abstract hit(key: string, limit: number, windowMs: number): Promise<RateLimitDecision>;

  /**
   * Checks every rule at once and counts one request on each key only when every key is within its
   * limit; a refused request counts nowhere. One decision per rule, in order; the request is allowed
   * when all are. Atomic in each adapter.
   */
  abstract hitAll(rules: readonly RateLimitRule[], windowMs: number): Promise<RateLimitDecision[]>;

  /**
   * The decisions {@link hitAll} would give for `rules` right now, counting nothing: for a check
   * before work whose outcome decides whether it counts (a login counts only when it fails).
   */
  abstract peekAll(rules: readonly RateLimitRule[], windowMs: number): Promise<RateLimitDecision[]>;

  /**
   * A sliding window (the estimate of {@link slidingWindow}) of `windowMs` on `key`, at most `limit`
   * requests in any window: reads the aligned window `at` falls in and the one before, and counts
   * one request in the current one only when the estimate has room, atomically (one round trip in
   * Redis). A refused request counts nowhere; its `resetMs` is when a retry gets through, an allowed
   * one's when the current aligned window ends. `at` is the wall clock (replicas share it).
   */
  abstract hitSliding(key: string, limit: number, windowMs: number, at?: number): Promise<RateLimitDecision>;

  /** Throws when the counter store is unreachable (readiness checks). */
  abstract ping(): Promise<void>;

  /** Releases what the limiter owns (a Redis connection it opened). */
  abstract close(): Promise<void>;
}

/** The decision for a counter at `count` with `ttlMs` left; `within`: the key was under its limit. */
export function decision(limit: number, count: number, ttlMs: number, within: boolean): RateLimitDecision {
  return { allowed: within, limit, remaining: Math.max(0, limit - count), resetMs: Math.max(1, ttlMs) };
}

export function assertWindow(windowMs: number): void {
  if (!Number.isInteger(windowMs) || windowMs < 1) throw new RangeError(`windowMs must be a positive integer, got ${windowMs}`);
}

export function assertLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 0) throw new RangeError(`limit must be a non-negative integer, got ${limit}`);
}

/** The decision of {@link RateLimiter.hitSliding} from the two windows' counts (`current` after this request when it was counted). */
export function slidingDecision(limit: number, windowMs: number, elapsedMs: number, previous: number, current: number, counted: boolean): RateLimitDecision {
  const before = counted ? current - 1 : current;
  const w = slidingWindow({ previous, current: before, elapsedMs, windowMs, limit });
  if (!counted) return { allowed: false, limit, remaining: 0, resetMs: w.retryMs };
  return { allowed: true, limit, remaining: Math.max(0, w.budget - current), resetMs: w.resetMs };
}
