import { Injectable, Module } from '@nestjs/common';
import { BaseConfig, type ServiceDefinition } from '@platform/platform';
import { createTestApp, createTestRedisPrefix, testServices, type TestApp, type TestRedisPrefix } from '@platform/testing';
import Redis from 'ioredis';
import { FallbackRateLimiter } from './fallback-rate-limiter';
import { MemoryRateLimiter } from './memory-rate-limiter';
import { RateLimitModule, type RateLimitModuleAsyncOptions, type RateLimitModuleOptions } from './rate-limit.module';
import { RateLimiter } from './rate-limiter';
import { REDIS_CLIENT } from './redis.module';

/** A service whose root module holds only RateLimitModule.forRoot(options). */
function definition(options?: RateLimitModuleOptions): ServiceDefinition {
  @Module({ imports: [RateLimitModule.forRoot(options)] })
  class RootModule {}
  return { name: 'rate-limit-test', port: 0, config: BaseConfig, module: () => ({ module: RootModule }) };
}

/** The same with `RateLimitModule.forRootAsync(options)`. */
function asyncDefinition(options: RateLimitModuleAsyncOptions): ServiceDefinition {
  @Module({ imports: [RateLimitModule.forRootAsync(options)] })
  class RootModule {}
  return { name: 'rate-limit-test', port: 0, config: BaseConfig, module: () => ({ module: RootModule }) };
}

/** A provider of the app the async options are made from. */
@Injectable()
class LimitSettings {
  readonly timeoutMs = 150;
}

@Module({ providers: [LimitSettings], exports: [LimitSettings] })
class LimitSettingsModule {}

/** Counts `n` requests on `key` with a limit of 2 and returns which were allowed. */
async function allowed(limiter: RateLimiter, key: string, n: number): Promise<boolean[]> {
  const out: boolean[] = [];
  for (let i = 0; i < n; i++) out.push((await limiter.hit(key, 2, 60_000)).allowed);
  return out;
}

describe('RateLimitModule in an app', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('counts in memory without REDIS_URL, with no redis readiness check and no connection', async () => {
    t = await createTestApp(definition());
    const limiter = t.app.get(RateLimiter);
    expect(limiter).toBeInstanceOf(MemoryRateLimiter);
    expect(t.app.get(REDIS_CLIENT)).toBeNull();
    expect(await allowed(limiter, 'k', 3)).toEqual([true, true, false]);
    const ready = await t.http.get('/readyz').expect(200);
    expect(ready.body.checks).not.toHaveProperty('redis');
  });

  it('makes its options with forRootAsync from providers of imported modules (awaited)', async () => {
    const useFactory = jest.fn(async (settings: LimitSettings) => ({ redisTimeoutMs: settings.timeoutMs }));
    t = await createTestApp(asyncDefinition({ imports: [LimitSettingsModule], inject: [LimitSettings], useFactory }));
    expect(useFactory).toHaveBeenCalledTimes(1);
    expect(useFactory.mock.calls[0][0]).toBeInstanceOf(LimitSettings);
    const limiter = t.app.get(RateLimiter);
    expect(limiter).toBeInstanceOf(MemoryRateLimiter);
    expect(await allowed(limiter, 'k', 3)).toEqual([true, true, false]);
  });

  it('reports an unreachable Redis as not ready, still limits (in memory), and closes the connection on shutdown', async () => {
    t = await createTestApp(definition({ redisTimeoutMs: 200 }), { REDIS_URL: 'redis://127.0.0.1:1' });
    const limiter = t.app.get(RateLimiter);
    const client = t.app.get<Redis>(REDIS_CLIENT);
    const disconnect = jest.spyOn(client, 'disconnect');
    expect(limiter).toBeInstanceOf(FallbackRateLimiter);
    const ready = await t.http.get('/readyz').expect(503);
    expect(ready.body.checks.redis).toMatchObject({ status: 'down' });
    // never fails open: the third request within the window is refused although Redis is down
    expect(await allowed(limiter, 'k', 3)).toEqual([true, true, false]);
    await t.close();
    t = undefined;
    // ended at once (QUIT would wait for a server that never answers); no reconnect is scheduled
    expect(disconnect).toHaveBeenCalledWith();
    expect((client as unknown as { reconnectTimeout: unknown }).reconnectTimeout).toBeNull();
  });
});

const { redisUrl } = testServices();

if (redisUrl) describe('RateLimitModule on a real Redis', () => {
  let redis: TestRedisPrefix;
  let t: TestApp | undefined;
  beforeAll(() => {
    redis = createTestRedisPrefix();
  });
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });
  afterAll(() => redis.cleanup());

  it('counts in Redis under the key prefix, is ready, and quits the connection on shutdown', async () => {
    t = await createTestApp(definition({ keyPrefix: `${redis.prefix}login:` }), { REDIS_URL: redis.url });
    const client = t.app.get<Redis>(REDIS_CLIENT);
    const ready = await t.http.get('/readyz').expect(200);
    expect(ready.body.checks.redis).toEqual({ status: 'up' });
    expect(await allowed(t.app.get(RateLimiter), 'ip:1.2.3.4', 3)).toEqual([true, true, false]);
    expect(await client.get(`${redis.prefix}login:ip:1.2.3.4`)).toBe('3');
    await t.close();
    t = undefined;
    expect(client.status).toBe('end');
  });

  it('shares counters between two apps on the same Redis and prefix (replicas)', async () => {
    const env = { REDIS_URL: redis.url };
    const a = await createTestApp(definition({ keyPrefix: `${redis.prefix}shared:` }), env);
    const b = await createTestApp(definition({ keyPrefix: `${redis.prefix}shared:` }), env);
    try {
      const [la, lb] = [a.app.get(RateLimiter), b.app.get(RateLimiter)];
      const out = [(await la.hit('p', 2, 60_000)).allowed, (await lb.hit('p', 2, 60_000)).allowed, (await la.hit('p', 2, 60_000)).allowed];
      expect(out).toEqual([true, true, false]);
    } finally {
      await b.close();
      await a.close();
    }
  });

  it('takes its key prefix from forRootAsync, here from the validated config (REDIS_KEY_PREFIX)', async () => {
    t = await createTestApp(asyncDefinition({ inject: [BaseConfig], useFactory: (config: BaseConfig) => ({ keyPrefix: `${config.REDIS_KEY_PREFIX}async:` }) }), {
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: redis.prefix,
    });
    expect(await allowed(t.app.get(RateLimiter), 'ip:5.6.7.8', 3)).toEqual([true, true, false]);
    expect(await t.app.get<Redis>(REDIS_CLIENT).get(`${redis.prefix}async:ip:5.6.7.8`)).toBe('3');
  });

  it('prefixes keys with the service name by default', async () => {
    t = await createTestApp(definition(), { REDIS_URL: redis.url });
    const key = `${redis.prefix}default`;
    await t.app.get(RateLimiter).hit(key, 2, 60_000);
    const client = new Redis(redis.url!);
    try {
      expect(await client.get(`rate-limit-test:rl:${key}`)).toBe('1');
      await client.del(`rate-limit-test:rl:${key}`);
    } finally {
      client.disconnect();
    }
  });
});
