import { createRateLimiter } from './create-rate-limiter';
import { MemoryRateLimiter } from './memory-rate-limiter';

describe('createRateLimiter', () => {
  it('keeps counters in memory without REDIS_URL', async () => {
    const l = createRateLimiter({ redisUrl: undefined, keyPrefix: 'x:' });
    expect(l).toBeInstanceOf(MemoryRateLimiter);
    await expect(l.ping()).resolves.toBeUndefined();
    await l.close();
  });
});
