import Redis from 'ioredis';
import { testServices } from './services';
import { createTestRedisPrefix, testRedisDb } from './test-redis';

const { redisUrl } = testServices();

describe('createTestRedisPrefix', () => {
  it('uses a Redis db index per Jest worker, 1…15', () => {
    const db = testRedisDb();
    expect(db).toBeGreaterThanOrEqual(1);
    expect(db).toBeLessThanOrEqual(15);
  });

  // The global setup found Redis or not; each case has its own assertion.
  if (redisUrl) {
    it('prefixes keys and deletes only its own on cleanup', async () => {
      const mine = createTestRedisPrefix();
      const other = createTestRedisPrefix();
      expect(mine.prefix).toMatch(/^test:[a-z0-9]{10}:$/);
      expect(mine.prefix).not.toBe(other.prefix);
      expect(new URL(mine.url!).pathname).toBe(`/${mine.db}`);

      const client = new Redis(mine.url!);
      try {
        const prefixed = new Redis(mine.url!, { keyPrefix: mine.prefix });
        for (let i = 0; i < 30; i++) await prefixed.set(`k${i}`, String(i));
        prefixed.disconnect();
        await client.set(`${other.prefix}keep`, '1');
        expect(await client.exists(`${mine.prefix}k7`)).toBe(1);

        await mine.cleanup();
        expect(await client.keys(`${mine.prefix}*`)).toEqual([]);
        expect(await client.get(`${other.prefix}keep`)).toBe('1');
        await other.cleanup();
        expect(await client.exists(`${other.prefix}keep`)).toBe(0);
      } finally {
        client.disconnect();
      }
    });
  } else {
    it('leaves the URL unset without Redis (in-memory)', async () => {
      const prefix = createTestRedisPrefix();
      expect(prefix.url).toBeUndefined();
      await expect(prefix.cleanup()).resolves.toBeUndefined();
    });
  }
});
