// The MCP control's shared state in Redis (TEST_REDIS_URL when it answers) and in memory: the log
// tailer's lock has one holder at a time and passes on when not renewed; the capped list and clear.
import { BaseConfig } from '@platform/platform';
import { createRedisClient } from '@platform/rate-limit';
import { testServices } from '@platform/testing';
import type Redis from 'ioredis';
import type { KnowledgeApiConfig } from '../config';
import { McpStore } from './mcp-store';

describe('McpStore', () => {
  const redisUrl = testServices().redisUrl;
  let redis: Redis | undefined;
  const prefix = `mcp-store-test-${process.pid}-${Date.now()}:`;
  const config = Object.assign(new BaseConfig(), { REDIS_KEY_PREFIX: prefix }) as unknown as KnowledgeApiConfig;

  beforeAll(() => {
    if (redisUrl) redis = createRedisClient(redisUrl);
  });
  afterAll(async () => {
    if (redis) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    }
  });

  for (const kind of ['redis', 'memory'] as const) {
    describe(kind, () => {
      const store = () => new McpStore(kind === 'redis' ? (redis ?? null) : null, config);

      it('gives the lock to one holder at a time, and to another once it is released or expires', async () => {
        if (kind === 'redis' && !redis) return;
        const s = store();
        const [a, b] = [McpStore.token(), McpStore.token()];
        // Held for 5 s: long enough that a loaded machine does not let it expire between the steps.
        expect(await s.hold(`lock-${kind}`, a, 5_000)).toBe(true);
        expect(await s.hold(`lock-${kind}`, b, 5_000)).toBe(false);
        expect(await s.hold(`lock-${kind}`, a, 5_000)).toBe(true); // renewed
        await s.release(`lock-${kind}`, b); // not b's: no effect
        expect(await s.hold(`lock-${kind}`, b, 5_000)).toBe(false);
        await s.release(`lock-${kind}`, a);
        expect(await s.hold(`lock-${kind}`, b, 100)).toBe(true);
        await new Promise((r) => setTimeout(r, 150));
        expect(await s.hold(`lock-${kind}`, a, 100)).toBe(true); // b's expired
      });

      it('keeps the last entries of a list, oldest first, and clears it', async () => {
        if (kind === 'redis' && !redis) return;
        const s = store();
        await s.push(`list-${kind}`, [1, 2, 3], 4);
        await s.push(`list-${kind}`, [4, 5], 4);
        expect(await s.last(`list-${kind}`, 10)).toEqual([2, 3, 4, 5]);
        expect(await s.last(`list-${kind}`, 2)).toEqual([4, 5]);
        await s.clear(`list-${kind}`);
        expect(await s.last(`list-${kind}`, 10)).toEqual([]);
        await s.set(`value-${kind}`, { a: 1 });
        expect(await s.get(`value-${kind}`)).toEqual({ a: 1 });
        expect(await s.get(`missing-${kind}`)).toBeUndefined();
      });
    });
  }
});
