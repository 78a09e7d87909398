import { ApiError } from '@platform/errors';
import { resetSeconds, type RateLimitDecision, type RateLimiter, type RateLimitRule } from '@platform/rate-limit';

/** Result of checking or counting login attempts. */
export interface LoginAttemptDecision {
  allowed: boolean;
  /** Seconds until the window that refused the attempt resets (0 when allowed). */
  retryAfterSeconds: number;
}

export interface LoginRateLimits {
  perAccount: number;
  perIp: number;
  windowMs: number;
}

/** 429 `{detail}` with `Retry-After`, in the error shape of both realms. */
export function tooManyLoginAttempts(retryAfterSeconds: number): ApiError {
  return new ApiError(429, 'RATE_LIMITED', `Too many login attempts; try again in ${retryAfterSeconds} seconds`, {
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });
}

/**
 * Fixed-window counters of failed logins: at most `perAccount` failures per client IP and account,
 * and `perIp` per client IP whatever the account, in each window; at the limit every attempt of
 * that client (a right password too) is refused until the window ends. Successful logins count
 * nowhere, so a client that keeps logging in correctly is never locked out. The counters live in
 * the shared {@link RateLimiter}: in Redis when REDIS_URL is set (every replica enforces the same
 * limits), else in this process.
 */
export class LoginRateLimiter {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly limits: LoginRateLimits,
  ) {}

  /**
   * Runs a credential check under the limits and returns its result (null: wrong credentials).
   * Throws 429 before the check when the client is at a limit; counts a wrong answer (429 when a
   * concurrent failure filled the counter first); and checks again before accepting a right one,
   * since failures sent in parallel may have filled a counter while the password was verified —
   * so a burst of parallel guesses gets no more answers than the limit.
   */
  async guard<T>(ip: string, account: string, verify: () => Promise<T | null>): Promise<T | null> {
    this.throwIfRefused(await this.check(ip, account));
    const result = await verify();
    this.throwIfRefused(result === null ? await this.recordFailure(ip, account) : await this.check(ip, account));
    return result;
  }

  /** Whether the client may try now (both counters below their limits); counts nothing. */
  async check(ip: string, account: string): Promise<LoginAttemptDecision> {
    return this.verdict(await this.limiter.peekAll(this.rules(ip, account), this.limits.windowMs));
  }

  /** Counts one failed attempt on both counters; refused (and counted nowhere) when either was full. */
  async recordFailure(ip: string, account: string): Promise<LoginAttemptDecision> {
    return this.verdict(await this.limiter.hitAll(this.rules(ip, account), this.limits.windowMs));
  }

  private rules(ip: string, account: string): RateLimitRule[] {
    return [
      { key: `ip:${ip}`, limit: this.limits.perIp },
      { key: `acct:${ip}:${account.trim().toLowerCase()}`, limit: this.limits.perAccount },
    ];
  }

  private verdict(decisions: RateLimitDecision[]): LoginAttemptDecision {
    const refusedBy = decisions.filter((d) => !d.allowed);
    if (refusedBy.length === 0) return { allowed: true, retryAfterSeconds: 0 };
    return { allowed: false, retryAfterSeconds: Math.max(...refusedBy.map(resetSeconds)) };
  }

  private throwIfRefused(decision: LoginAttemptDecision): void {
    if (!decision.allowed) throw tooManyLoginAttempts(decision.retryAfterSeconds);
  }
}
