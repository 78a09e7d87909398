import type { RateLimitDecision } from './rate-limiter';

/** Whole seconds until the window resets, at least 1 (RateLimit-Reset, Retry-After). */
export function resetSeconds(decision: RateLimitDecision): number {
  return Math.max(1, Math.ceil(decision.resetMs / 1000));
}

/**
 * The IETF draft `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (seconds) headers of
 * a decision, plus `Retry-After` (seconds) when it refused the request.
 */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  const reset = String(resetSeconds(decision));
  const headers: Record<string, string> = {
    'RateLimit-Limit': String(decision.limit),
    'RateLimit-Remaining': String(decision.remaining),
    'RateLimit-Reset': reset,
  };
  if (!decision.allowed) headers['Retry-After'] = reset;
  return headers;
}
