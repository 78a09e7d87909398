import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { HealthRegistry } from '@platform/platform';
import Redis from 'ioredis';
import { EmailApiConfig } from '../config';

export const REDIS = Symbol('EMAIL_API_REDIS');

/** The Redis connection when REDIS_URL is set (null otherwise): readiness check `redis`, closed on shutdown. */
export const redisProvider = {
  provide: REDIS,
  inject: [EmailApiConfig],
  useFactory: (config: EmailApiConfig): Redis | null => {
    if (!config.REDIS_URL) return null;
    const client = new Redis(config.REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true });
    client.on('error', (err) => new Logger('Redis').warn(`redis: ${err.message}`));
    return client;
  },
};

@Injectable()
export class RedisLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(REDIS) private readonly redis: Redis | null,
    private readonly health: HealthRegistry,
  ) {}

  onModuleInit(): void {
    const redis = this.redis;
    if (redis) this.health.register('redis', async () => void (await redis.ping()));
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.redis) return;
    this.health.unregister('redis');
    await this.redis.quit().catch(() => this.redis?.disconnect());
  }
}
