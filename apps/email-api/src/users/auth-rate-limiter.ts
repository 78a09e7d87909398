import { Injectable } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { RateLimiter, resetSeconds, type RateLimitDecision, type RateLimitRule } from '@platform/rate-limit';
import { EmailApiConfig } from '../config';

/** The limited account routes; each has its own counters. */
export type AuthAction = 'login' | 'signup' | 'reset';

/**
 * Limits of `/auth/login`, `/auth/signup` and `/auth/request-password-reset` per client IP and per
 * account, on the shared {@link RateLimiter} (Redis when REDIS_URL is set: every replica enforces
 * the same counts; never failing open), as auth-api's login limiter does. In each window of
 * AUTH_LIMIT_WINDOW_SECONDS:
 * - login: failed attempts, at most AUTH_LIMIT_PER_ACCOUNT per IP and account and AUTH_LIMIT_PER_IP
 *   per IP; at a limit every attempt of that client (a right password too) is refused until the
 *   window ends; successful logins count nowhere;
 * - signup: every request, at most AUTH_LIMIT_PER_IP per IP and AUTH_LIMIT_PER_ACCOUNT per email;
 * - password reset requests: every request, at most AUTH_LIMIT_PER_IP per IP and
 *   AUTH_LIMIT_PER_ACCOUNT per email (whichever IP asks: a victim's inbox cannot be flooded), the
 *   same whether the account exists or not (no enumeration).
 * Refused requests count nowhere.
 */
@Injectable()
export class AuthRateLimiter {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly config: EmailApiConfig,
  ) {}

  /** Counts one request (signup, reset); 429 when a counter is full. */
  async hit(action: Exclude<AuthAction, 'login'>, ip: string, email: string): Promise<void> {
    refuseIfFull(await this.limiter.hitAll(this.rules(action, ip, email), this.windowMs));
  }

  /**
   * Runs a credential check under the login limits: 429 before it when the client is at a limit,
   * counts a failure (null), and checks again before accepting a success (parallel failures may have
   * filled a counter while the password was verified).
   */
  async login<T>(ip: string, email: string, verify: () => Promise<T | null>): Promise<T | null> {
    const rules = this.rules('login', ip, email);
    refuseIfFull(await this.limiter.peekAll(rules, this.windowMs));
    const result = await verify();
    refuseIfFull(result === null ? await this.limiter.hitAll(rules, this.windowMs) : await this.limiter.peekAll(rules, this.windowMs));
    return result;
  }

  private get windowMs(): number {
    return this.config.AUTH_LIMIT_WINDOW_SECONDS * 1000;
  }

  private rules(action: AuthAction, ip: string, email: string): RateLimitRule[] {
    const account = email.trim().toLowerCase();
    return [
      { key: `auth:${action}:ip:${ip}`, limit: this.config.AUTH_LIMIT_PER_IP },
      { key: action === 'login' ? `auth:login:acct:${ip}:${account}` : `auth:${action}:acct:${account}`, limit: this.config.AUTH_LIMIT_PER_ACCOUNT },
    ];
  }
}

function refuseIfFull(decisions: RateLimitDecision[]): void {
  const refused = decisions.filter((d) => !d.allowed);
  if (!refused.length) return;
  const seconds = Math.max(...refused.map(resetSeconds));
  throw new ApiError(429, 'RATE_LIMIT_EXCEEDED', `Too many attempts; try again in ${seconds} seconds`, {
    suggestion: `Wait ${seconds} seconds (Retry-After). Forgotten password? Use POST /auth/request-password-reset.`,
    headers: { 'Retry-After': String(seconds) },
  });
}
