import { createTestRedisPrefix, testServices, type TestRedisPrefix } from '@platform/testing';
import Redis from 'ioredis';
import { createRateLimiter } from './create-rate-limiter';
import { FallbackRateLimiter } from './fallback-rate-limiter';
import { RedisRateLimiter } from './redis-rate-limiter';

const { redisUrl } = testServices();
/** What these tests count is not how fast Redis answers: a loaded machine may hold a burst of hits past the default second. */
const PATIENT_MS = 10_000;

if (!redisUrl) {
  // The global setup found no Redis (fallbacks allowed): the factory must then count in memory.
  it('falls back to memory without Redis', () => {
    expect(createRateLimiter({ redisUrl })).not.toBeInstanceOf(RedisRateLimiter);
  });
}

if (redisUrl) describe('RedisRateLimiter (real Redis)', () => {
  let t: TestRedisPrefix;
  let a: Redis;
  let b: Redis;
  beforeAll(() => {
    t = createTestRedisPrefix();
    a = new Redis(t.url!);
    b = new Redis(t.url!);
  });
  afterAll(async () => {
    await t.cleanup();
    a.disconnect();
    b.disconnect();
  });

  it('is atomic: concurrent hits from two clients allow exactly `limit`', async () => {
    const one = new RedisRateLimiter(a, { keyPrefix: t.prefix, timeoutMs: PATIENT_MS });
    const two = new RedisRateLimiter(b, { keyPrefix: t.prefix, timeoutMs: PATIENT_MS });
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? one : two).hit('burst', 25, 60_000)));
    expect(results.filter((d) => d.allowed)).toHaveLength(25);
    expect(results.map((d) => d.remaining).sort((x, y) => x - y)).toEqual([...Array(36).fill(0), ...Array.from({ length: 24 }, (_, i) => i + 1)]);
    expect(Number(await a.get(`${t.prefix}burst`))).toBe(60);
  });

  it('hitSliding is one atomic script: concurrent hits from two clients allow exactly the budget, and the previous window weighs', async () => {
    const one = new RedisRateLimiter(a, { keyPrefix: t.prefix, timeoutMs: PATIENT_MS });
    const two = new RedisRateLimiter(b, { keyPrefix: t.prefix, timeoutMs: PATIENT_MS });
    const windowMs = 60_000;
    const start = Math.floor(Date.now() / windowMs) * windowMs; // a window's start: any aligned one works
    const burst = async (at: number, n: number) => (await Promise.all(Array.from({ length: n }, (_, i) => (i % 2 ? one : two).hitSliding('sliding', 20, windowMs, at)))).filter((d) => d.allowed).length;
    expect(await burst(start + 59_000, 30)).toBe(20); // the last second of a window
    expect(await burst(start + windowMs + 1_000, 30)).toBe(0); // one second into the next: 59/60 of the previous still weighs
    expect(await burst(start + windowMs + 30_000, 30)).toBe(10); // half way: 20 − 20 × 0.5
    const refused = await one.hitSliding('sliding', 20, windowMs, start + windowMs + 30_000);
    expect(refused).toMatchObject({ allowed: false, remaining: 0 });
    expect(refused.resetMs).toBeGreaterThan(0);
    // only the allowed ones were counted, in the aligned windows' keys, which expire
    const index = start / windowMs;
    expect(Number(await a.get(`${t.prefix}sliding:${index}`))).toBe(20);
    expect(Number(await a.get(`${t.prefix}sliding:${index + 1}`))).toBe(10);
    expect(await a.pttl(`${t.prefix}sliding:${index + 1}`)).toBeGreaterThan(0);
  });

  it('hitAll is atomic too: concurrent attempts on shared and own keys count only the allowed ones', async () => {
    const one = new RedisRateLimiter(a, { keyPrefix: t.prefix, timeoutMs: PATIENT_MS });
    const two = new RedisRateLimiter(b, { keyPrefix: t.prefix, timeoutMs: PATIENT_MS });
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? one : two).hitAll([{ key: 'ip', limit: 10 }, { key: `acct:${i % 4}`, limit: 100 }], 60_000)),
    );
    expect(results.filter((ds) => ds.every((d) => d.allowed))).toHaveLength(10);
    expect(Number(await a.get(`${t.prefix}ip`))).toBe(10);
    const perAccount = await Promise.all([0, 1, 2, 3].map(async (n) => Number((await a.get(`${t.prefix}acct:${n}`)) ?? 0)));
    expect(perAccount.reduce((x, y) => x + y, 0)).toBe(10);
  });

  it('peekAll reads the shared counters without counting', async () => {
    const l = new RedisRateLimiter(a, { keyPrefix: t.prefix, timeoutMs: PATIENT_MS });
    expect(await l.peekAll([{ key: 'peek', limit: 2 }], 60_000)).toEqual([{ allowed: true, limit: 2, remaining: 2, resetMs: 60_000 }]);
    expect(await a.exists(`${t.prefix}peek`)).toBe(0);
    await l.hit('peek', 2, 60_000);
    await l.hit('peek', 2, 60_000);
    const [full] = await new RedisRateLimiter(b, { keyPrefix: t.prefix, timeoutMs: PATIENT_MS }).peekAll([{ key: 'peek', limit: 2 }], 60_000);
    expect(full).toMatchObject({ allowed: false, remaining: 0 });
    expect(Number(await a.get(`${t.prefix}peek`))).toBe(2);
  });

  it('starts a new window once the old one has expired', async () => {
    const l = new RedisRateLimiter(a, { keyPrefix: t.prefix, timeoutMs: PATIENT_MS });
    expect(await l.hit('short', 2, 60_000)).toMatchObject({ allowed: true, remaining: 1 });
    await l.hit('short', 2, 60_000);
    const refused = await l.hit('short', 2, 60_000);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, limit: 2 });
    expect(refused.resetMs).toBeGreaterThan(0);
    expect(refused.resetMs).toBeLessThanOrEqual(60_000);
    // end the window now instead of waiting for it
    await a.pexpire(`${t.prefix}short`, 1);
    await new Promise((r) => setTimeout(r, 5));
    expect(await l.hit('short', 2, 60_000)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await a.pttl(`${t.prefix}short`)).toBeGreaterThan(0);
  });

  it('repairs a counter without expiry instead of blocking forever', async () => {
    await a.set(`${t.prefix}stuck`, '99');
    const l = new RedisRateLimiter(a, { keyPrefix: t.prefix, timeoutMs: PATIENT_MS });
    expect((await l.hit('stuck', 5, 30_000)).allowed).toBe(false);
    expect(await a.pttl(`${t.prefix}stuck`)).toBeGreaterThan(0);
  });

  it('isolates counters by key prefix', async () => {
    const mine = new RedisRateLimiter(a, { keyPrefix: `${t.prefix}app-a:`, timeoutMs: PATIENT_MS });
    const theirs = new RedisRateLimiter(b, { keyPrefix: `${t.prefix}app-b:`, timeoutMs: PATIENT_MS });
    expect((await mine.hit('k', 1, 60_000)).allowed).toBe(true);
    expect((await mine.hit('k', 1, 60_000)).allowed).toBe(false);
    expect(await theirs.hit('k', 1, 60_000)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await a.exists(`${t.prefix}app-a:k`, `${t.prefix}app-b:k`)).toBe(2);
  });

  it('createRateLimiter opens its own connection from REDIS_URL, counts in Redis (memory only as fallback) and closes it', async () => {
    const fallbacks: Error[] = [];
    const l = createRateLimiter({ redisUrl: t.url, keyPrefix: `${t.prefix}factory:`, onFallback: (err) => fallbacks.push(err) });
    try {
      expect(l).toBeInstanceOf(FallbackRateLimiter);
      await l.ping();
      expect((await l.hit('k', 5, 60_000)).remaining).toBe(4);
    } finally {
      await l.close();
    }
    expect(await a.get(`${t.prefix}factory:k`)).toBe('1');
    expect(fallbacks).toEqual([]);
  });

  it('createRateLimiter keeps limiting in memory when Redis does not answer', async () => {
    const fallbacks: Error[] = [];
    const l = createRateLimiter({ redisUrl: 'redis://127.0.0.1:1', keyPrefix: 'down:', onFallback: (err) => fallbacks.push(err) });
    try {
      const allowed = [];
      for (let i = 0; i < 3; i++) allowed.push((await l.hit('k', 2, 60_000)).allowed);
      expect(allowed).toEqual([true, true, false]);
      expect(fallbacks.length).toBe(3);
      await expect(l.ping()).rejects.toThrow();
    } finally {
      await l.close();
    }
  });
});
