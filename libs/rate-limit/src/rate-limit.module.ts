import { Inject, Injectable, Logger, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { SERVICE_NAME } from '@platform/platform';
import type Redis from 'ioredis';
import { createRateLimiter } from './create-rate-limiter';
import { RateLimiter } from './rate-limiter';
import { REDIS_CLIENT, RedisModule } from './redis.module';

export interface RateLimitModuleOptions {
  /** Prefix of every counter key in Redis, e.g. `auth-api:login:`; default `<service name>:rl:`. */
  keyPrefix?: string;
  /** A hit Redis has not answered within this many ms is counted in memory instead (default 1000). */
  redisTimeoutMs?: number;
}

@Injectable()
class RateLimiterLifecycle implements OnApplicationShutdown {
  constructor(@Inject(RateLimiter) private readonly limiter: RateLimiter) {}

  async onApplicationShutdown(): Promise<void> {
    await this.limiter.close();
  }
}

/**
 * `RateLimitModule.forRoot({ keyPrefix })` in the app's root module, once: provides `RateLimiter`
 * (global) on the app's Redis connection ({@link RedisModule}: readiness `redis`, closed on
 * shutdown) when REDIS_URL is set — counted in this process's memory while Redis fails or is slow,
 * so a limit loosens to per-replica counts but never lifts — and in memory alone when it is unset.
 */
@Module({})
export class RateLimitModule {
  static forRoot(options: RateLimitModuleOptions = {}): DynamicModule {
    return {
      module: RateLimitModule,
      global: true,
      imports: [RedisModule],
      providers: [
        {
          provide: RateLimiter,
          inject: [REDIS_CLIENT, { token: SERVICE_NAME, optional: true }],
          useFactory: (redis: Redis | null, serviceName?: string): RateLimiter => {
            const logger = new Logger('RateLimit');
            return createRateLimiter({
              redis,
              keyPrefix: options.keyPrefix ?? `${serviceName ?? 'app'}:rl:`,
              redisTimeoutMs: options.redisTimeoutMs,
              onFallback: (err) => logger.warn(`requests counted in this process while Redis fails: ${err.message}`),
            });
          },
        },
        RateLimiterLifecycle,
      ],
      exports: [RateLimiter],
    };
  }
}
