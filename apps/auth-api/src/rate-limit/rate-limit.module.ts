import { Global, Inject, Injectable, Logger, Module, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { HealthRegistry } from '@platform/platform';
import { createRateLimiter, RateLimiter, RedisRateLimiter } from '@platform/rate-limit';
import { AuthApiConfig } from '../config';
import { LoginRateLimiter } from './login-rate-limiter';

/** With REDIS_URL: readiness check `redis`; the connection is closed on shutdown. */
@Injectable()
export class LoginCountersLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(RateLimiter) private readonly limiter: RateLimiter,
    private readonly health: HealthRegistry,
  ) {}

  onModuleInit(): void {
    if (this.limiter instanceof RedisRateLimiter) this.health.register('redis', () => this.limiter.ping());
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.limiter instanceof RedisRateLimiter) this.health.unregister('redis');
    await this.limiter.close();
  }
}

/**
 * One limiter shared by both realms' login routes (so their counters are shared too): counters in
 * Redis under `${REDIS_KEY_PREFIX}login:` when REDIS_URL is set (shared by every replica; while Redis
 * fails, in this process, so the limit loosens to per-replica counts but never lifts), else in this process.
 */
@Global()
@Module({
  providers: [
    {
      provide: RateLimiter,
      inject: [AuthApiConfig],
      useFactory: (config: AuthApiConfig): RateLimiter => {
        const logger = new Logger('Redis');
        return createRateLimiter({
          redisUrl: config.REDIS_URL,
          keyPrefix: `${config.REDIS_KEY_PREFIX}login:`,
          onRedisError: (err) => logger.warn(`redis: ${err.message}`),
          onFallback: (err) => logger.warn(`failed logins counted in this process while Redis fails: ${err.message}`),
        });
      },
    },
    {
      provide: LoginRateLimiter,
      inject: [RateLimiter, AuthApiConfig],
      useFactory: (limiter: RateLimiter, config: AuthApiConfig) =>
        new LoginRateLimiter(limiter, {
          perAccount: config.AUTH_LOGIN_LIMIT_PER_ACCOUNT,
          perIp: config.AUTH_LOGIN_LIMIT_PER_IP,
          windowMs: config.AUTH_LOGIN_LIMIT_WINDOW_SECONDS * 1000,
        }),
    },
    LoginCountersLifecycle,
  ],
  exports: [LoginRateLimiter],
})
export class RateLimitModule {}
