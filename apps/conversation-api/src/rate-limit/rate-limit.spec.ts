import { allowedHeaders, limitExceeded } from './rate-limit';

describe('request rate limit answers', () => {
  it('names the headers of an allowed request as @nestjs/throttler did (X-RateLimit-*, seconds, -webhook on webhooks)', () => {
    const decision = { allowed: true, limit: 100, remaining: 99, resetMs: 59_001 };
    expect(allowedHeaders(decision, '')).toEqual({ 'X-RateLimit-Limit': '100', 'X-RateLimit-Remaining': '99', 'X-RateLimit-Reset': '60' });
    expect(allowedHeaders({ ...decision, remaining: 0, resetMs: 1 }, '-webhook')).toEqual({
      'X-RateLimit-Limit-webhook': '100',
      'X-RateLimit-Remaining-webhook': '0',
      'X-RateLimit-Reset-webhook': '1',
    });
  });

  it('refuses with 429 THROTTLER_LIMIT_EXCEEDED, Retry-After in whole seconds (at least 1)', () => {
    const err = limitExceeded({ allowed: false, limit: 100, remaining: 0, resetMs: 41_200 });
    expect(err.getStatus()).toBe(429);
    expect(err.code).toBe('THROTTLER_LIMIT_EXCEEDED');
    expect(err.message).toBe('Too many requests: the limit is 100 per minute');
    expect(err.suggestion).toBe('Wait 42 seconds (Retry-After) before sending more requests.');
    expect(err.headers).toEqual({ 'Retry-After': '42' });
    expect(limitExceeded({ allowed: false, limit: 3, remaining: 0, resetMs: 1 }).headers).toEqual({ 'Retry-After': '1' });
  });
});
