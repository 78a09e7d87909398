import { Inject, Injectable, Logger, Module, type DynamicModule, type InjectionToken, type ModuleMetadata, type OnApplicationShutdown, type OptionalFactoryDependency, type Provider } from '@nestjs/common';
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

/**
 * The options from providers of the app, for a value only known inside Nest (a prefix resolved from
 * the environment at start): `forRootAsync({ inject: [Token], useFactory: (t) => ({ keyPrefix }) })`.
 */
export interface RateLimitModuleAsyncOptions {
  /** Modules that provide what `inject` names (global modules, the config among them, need not be listed). */
  imports?: ModuleMetadata['imports'];
  inject?: Array<InjectionToken | OptionalFactoryDependency>;
  useFactory: (...deps: any[]) => RateLimitModuleOptions | Promise<RateLimitModuleOptions>;
}

const RATE_LIMIT_OPTIONS = 'PLATFORM_RATE_LIMIT_OPTIONS';

@Injectable()
class RateLimiterLifecycle implements OnApplicationShutdown {
  constructor(@Inject(RateLimiter) private readonly limiter: RateLimiter) {}

  async onApplicationShutdown(): Promise<void> {
    await this.limiter.close();
  }
}

/**
 * `RateLimitModule.forRoot({ keyPrefix })` (or `forRootAsync`) in the app's root module, once:
 * provides `RateLimiter` (global) on the app's Redis connection ({@link RedisModule}: readiness
 * `redis`, closed on shutdown) when REDIS_URL is set — counted in this process's memory while Redis
 * fails or is slow, so a limit loosens to per-replica counts but never lifts — and in memory alone
 * when it is unset.
 */
@Module({})
export class RateLimitModule {
  static forRoot(options: RateLimitModuleOptions = {}): DynamicModule {
    return RateLimitModule.build([], { provide: RATE_LIMIT_OPTIONS, useValue: options });
  }

  /** The same, with the options made by `useFactory` from the injected providers. */
  static forRootAsync(options: RateLimitModuleAsyncOptions): DynamicModule {
    return RateLimitModule.build(options.imports ?? [], { provide: RATE_LIMIT_OPTIONS, inject: options.inject ?? [], useFactory: options.useFactory });
  }

  private static build(imports: NonNullable<ModuleMetadata['imports']>, options: Provider): DynamicModule {
    return {
      module: RateLimitModule,
      global: true,
      imports: [RedisModule, ...imports],
      providers: [
        options,
        {
          provide: RateLimiter,
          inject: [RATE_LIMIT_OPTIONS, REDIS_CLIENT, { token: SERVICE_NAME, optional: true }],
          useFactory: (opts: RateLimitModuleOptions, redis: Redis | null, serviceName?: string): RateLimiter => {
            const logger = new Logger('RateLimit');
            return createRateLimiter({
              redis,
              keyPrefix: opts.keyPrefix ?? `${serviceName ?? 'app'}:rl:`,
              redisTimeoutMs: opts.redisTimeoutMs,
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
