import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { LoginRateLimiter } from './login-rate-limiter';

/**
 * Counts a login attempt before the credentials are checked; refuses with 429 `{detail}` and
 * `Retry-After` when the client IP (behind the gateway: the `X-Forwarded-For` client, as
 * `trust proxy` is on) or the IP+account pair is over its limit. The account is the form's
 * `username` (part B) or the body's `email` (part G). While Redis is unreachable the attempts
 * are counted in this process (per-replica limits, logged; `/readyz` reports redis down).
 */
@Injectable()
export class LoginRateLimitGuard implements CanActivate {

  constructor(private readonly limiter: LoginRateLimiter) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<{ ip?: string; body?: Record<string, unknown> }>();
    const account = req.body?.['username'] ?? req.body?.['email'];
    const decision = await this.limiter.attempt(req.ip ?? 'unknown', typeof account === 'string' ? account : '');
    if (decision.allowed) return true;
    throw new ApiError(429, 'RATE_LIMITED', `Too many login attempts; try again in ${decision.retryAfterSeconds} seconds`, {
      headers: { 'Retry-After': String(decision.retryAfterSeconds) },
    });
  }
}
