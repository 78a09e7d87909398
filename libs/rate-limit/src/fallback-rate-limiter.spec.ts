import { FallbackRateLimiter } from './fallback-rate-limiter';
import { MemoryRateLimiter } from './memory-rate-limiter';
import { RateLimiter, type RateLimitDecision } from './rate-limiter';

class BrokenLimiter extends RateLimiter {
  hit(): Promise<RateLimitDecision> {
    return Promise.reject(new Error('connection refused'));
  }
  hitAll(): Promise<RateLimitDecision[]> {
    return Promise.reject(new Error('connection refused'));
  }
  peekAll(): Promise<RateLimitDecision[]> {
    return Promise.reject(new Error('connection refused'));
  }
  hitSliding(): Promise<RateLimitDecision> {
    return Promise.reject(new Error('connection refused'));
  }
  ping(): Promise<void> {
    return Promise.reject(new Error('connection refused'));
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

describe('FallbackRateLimiter', () => {
  it('keeps enforcing the limit in memory while the primary store fails, and says so', async () => {
    const failures: string[] = [];
    const limiter = new FallbackRateLimiter(new BrokenLimiter(), new MemoryRateLimiter(), (err) => failures.push(err.message));
    const allowed = [];
    for (let i = 0; i < 5; i++) allowed.push((await limiter.hit('login:1.2.3.4', 3, 60_000)).allowed);
    expect(allowed).toEqual([true, true, true, false, false]);
    const all = await limiter.hitAll([{ key: 'a', limit: 1 }, { key: 'b', limit: 5 }], 60_000);
    expect(all.map((d) => d.allowed)).toEqual([true, true]);
    const peeked = await limiter.peekAll([{ key: 'a', limit: 1 }], 60_000);
    expect(peeked.map((d) => d.allowed)).toEqual([false]);
    const sliding = [];
    for (let i = 0; i < 3; i++) sliding.push((await limiter.hitSliding('api:p', 2, 60_000)).allowed);
    expect(sliding).toEqual([true, true, false]);
    expect(failures).toHaveLength(10);
    await expect(limiter.ping()).rejects.toThrow('connection refused');
  });

  it('uses the primary while it works', async () => {
    const primary = new MemoryRateLimiter();
    const fallback = new MemoryRateLimiter();
    const limiter = new FallbackRateLimiter(primary, fallback);
    await limiter.hit('k', 1, 60_000);
    expect((await primary.hit('k', 1, 60_000)).allowed).toBe(false);
    expect((await fallback.hit('k', 1, 60_000)).allowed).toBe(true);
  });
});
