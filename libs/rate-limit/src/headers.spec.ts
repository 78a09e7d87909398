import { rateLimitHeaders, resetSeconds } from './headers';

describe('rateLimitHeaders', () => {
  it('gives RateLimit-* in whole seconds (at least 1) and Retry-After only when refused', () => {
    expect(rateLimitHeaders({ allowed: true, limit: 10, remaining: 4, resetMs: 1500 })).toEqual({
      'RateLimit-Limit': '10',
      'RateLimit-Remaining': '4',
      'RateLimit-Reset': '2',
    });
    expect(rateLimitHeaders({ allowed: false, limit: 10, remaining: 0, resetMs: 1 })).toEqual({
      'RateLimit-Limit': '10',
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': '1',
      'Retry-After': '1',
    });
    expect(resetSeconds({ allowed: true, limit: 1, remaining: 0, resetMs: 60_000 })).toBe(60);
  });
});
