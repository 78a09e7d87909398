import type { RateLimitDecision, RateLimiter } from '@platform/rate-limit';

/**
 * The per-project limit of the API: at most `limit` requests in any `windowMs` (one minute), a
 * sliding window (`hitSliding`) of the shared {@link RateLimiter} of `@platform/rate-limit` (Redis
 * when REDIS_URL is set, shared by every replica, one atomic script a request; in memory while Redis
 * fails, never failing open). A fixed window let up to twice the limit through around a window
 * boundary; the sliding estimate does not. Refused requests are not counted, so a client that backs
 * off gets through again as soon as the estimate allows (`resetMs` says when).
 */
export class ProjectRateLimiter {
  constructor(
    private readonly limiter: RateLimiter,
    readonly limit: number,
    readonly windowMs = 60_000,
  ) {}

  /** Counts one request of `projectId` when the sliding window has room, and tells whether it did. */
  hit(projectId: string): Promise<RateLimitDecision> {
    return this.limiter.hitSliding(projectId, this.limit, this.windowMs);
  }
}
