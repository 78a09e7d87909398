import type { RateLimitDecision, RateLimiter } from '@platform/rate-limit';

/**
 * The per-project limit of the API: `limit` requests per fixed one-minute window, every request
 * counted (refused ones too), on the shared {@link RateLimiter} of `@platform/rate-limit`.
 */
export class ProjectRateLimiter {
  constructor(
    private readonly limiter: RateLimiter,
    readonly limit: number,
    readonly windowMs = 60_000,
  ) {}

  /** Counts one request of `projectId` and tells whether it is within the limit. */
  hit(projectId: string): Promise<RateLimitDecision> {
    return this.limiter.hit(projectId, this.limit, this.windowMs);
  }
}
