import { Global, Inject, Injectable, Logger, Module, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { BaseConfig, HealthRegistry } from '@platform/platform';
import type Redis from 'ioredis';
import { closeRedis, createRedisClient } from './redis-client';

/** Injection token of the app's Redis connection: `@Inject(REDIS_CLIENT) redis: Redis | null` (null without REDIS_URL). */
export const REDIS_CLIENT = 'PLATFORM_REDIS_CLIENT';

@Injectable()
class RedisLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: Redis | null,
    private readonly health: HealthRegistry,
  ) {}

  onModuleInit(): void {
    const redis = this.redis;
    if (redis) this.health.register('redis', async () => void (await redis.ping()));
  }

  /** Last in the shutdown, after every user of the connection has stopped. */
  async onApplicationShutdown(): Promise<void> {
    if (!this.redis) return;
    this.health.unregister('redis');
    await closeRedis(this.redis);
  }
}

/**
 * The app's one Redis connection, opened from BaseConfig's REDIS_URL (`REDIS_CLIENT` is null when it
 * is unset): readiness check `redis` on `/readyz`, closed on shutdown, connection errors logged as
 * warnings (ioredis reconnects by itself). Global; `RateLimitModule.forRoot` imports it.
 */
@Global()
@Module({
  providers: [
    {
      provide: REDIS_CLIENT,
      inject: [BaseConfig],
      useFactory: (config: BaseConfig): Redis | null => {
        if (!config.REDIS_URL) return null;
        const logger = new Logger('Redis');
        return createRedisClient(config.REDIS_URL, { onError: (err) => logger.warn(`redis: ${err.message}`) });
      },
    },
    RedisLifecycle,
  ],
  exports: [REDIS_CLIENT],
})
export class RedisModule {}
