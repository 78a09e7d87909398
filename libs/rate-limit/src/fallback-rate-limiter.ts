import { RateLimiter, type RateLimitDecision, type RateLimitRule } from './rate-limiter';

/**
 * Counts in `primary` (Redis, shared by every replica) and, while it fails, in `fallback` (this
 * process's memory): a Redis outage loosens a limit to one count per replica instead of lifting it
 * (a login limit that fails open invites guessing exactly when nobody watches). `onFallback` is
 * told of each failure; `ping` still reports the primary, so readiness shows the outage.
 */
export class FallbackRateLimiter extends RateLimiter {
  constructor(
    private readonly primary: RateLimiter,
    private readonly fallback: RateLimiter,
    private readonly onFallback: (err: Error) => void = () => undefined,
  ) {
    super();
  }

  async hit(key: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
    try {
      return await this.primary.hit(key, limit, windowMs);
    } catch (err) {
      this.onFallback(err as Error);
      return this.fallback.hit(key, limit, windowMs);
    }
  }

  async hitAll(rules: readonly RateLimitRule[], windowMs: number): Promise<RateLimitDecision[]> {
    try {
      return await this.primary.hitAll(rules, windowMs);
    } catch (err) {
      this.onFallback(err as Error);
      return this.fallback.hitAll(rules, windowMs);
    }
  }

  async peekAll(rules: readonly RateLimitRule[], windowMs: number): Promise<RateLimitDecision[]> {
    try {
      return await this.primary.peekAll(rules, windowMs);
    } catch (err) {
      this.onFallback(err as Error);
      return this.fallback.peekAll(rules, windowMs);
    }
  }

  async hitSliding(key: string, limit: number, windowMs: number, at?: number): Promise<RateLimitDecision> {
    try {
      return await this.primary.hitSliding(key, limit, windowMs, at);
    } catch (err) {
      this.onFallback(err as Error);
      return this.fallback.hitSliding(key, limit, windowMs, at);
    }
  }

  ping(): Promise<void> {
    return this.primary.ping();
  }

  async close(): Promise<void> {
    await Promise.all([this.primary.close(), this.fallback.close()]);
  }
}
