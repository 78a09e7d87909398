import { resetSeconds, type RateLimiter } from '@platform/rate-limit';

/** Result of counting one login attempt. */
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

/**
 * Fixed-window counters for login attempts: at most `perAccount` attempts per client IP and
 * account, and `perIp` per client IP whatever the account, in each window. Every attempt counts
 * (successful ones too), so guessing cannot hide between successes; a refused attempt counts on
 * neither key. The counters live in the shared {@link RateLimiter}: in Redis when REDIS_URL is set
 * (every replica enforces the same limits), else in this process.
 */
export class LoginRateLimiter {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly limits: LoginRateLimits,
  ) {}

  async attempt(ip: string, account: string): Promise<LoginAttemptDecision> {
    const decisions = await this.limiter.hitAll(
      [
        { key: `ip:${ip}`, limit: this.limits.perIp },
        { key: `acct:${ip}:${account.trim().toLowerCase()}`, limit: this.limits.perAccount },
      ],
      this.limits.windowMs,
    );
    const refusedBy = decisions.filter((d) => !d.allowed);
    if (refusedBy.length === 0) return { allowed: true, retryAfterSeconds: 0 };
    return { allowed: false, retryAfterSeconds: Math.max(...refusedBy.map(resetSeconds)) };
  }
}
