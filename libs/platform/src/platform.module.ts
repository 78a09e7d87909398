import { Global, Module, type DynamicModule, type Type } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { Logger } from 'pino';
import { BaseConfig } from './config/base.config';
import { HealthRegistry } from './health/health.registry';
import { MetricsService } from './metrics/metrics.service';
import { SERVICE_ENV, SERVICE_MODE, SERVICE_NAME, type ServiceMode } from './tokens';

export interface PlatformModuleOptions {
  name: string;
  config: BaseConfig;
  configClass: Type<BaseConfig>;
  logger: Logger;
  metrics: MetricsService;
  env: Record<string, string | undefined>;
  /** `command` for `migrate` and the app's commands (default `serve`). */
  mode?: ServiceMode;
}

/**
 * Global module of every app: the config (under `BaseConfig` and the app's config class),
 * `SERVICE_NAME`, `SERVICE_ENV`, `SERVICE_MODE`, `HealthRegistry`, `MetricsService`, and nestjs-pino bound to the app's logger.
 */
@Global()
@Module({})
export class PlatformModule {
  static forRoot(opts: PlatformModuleOptions): DynamicModule {
    const providers = [
      { provide: BaseConfig, useValue: opts.config },
      ...(opts.configClass !== BaseConfig ? [{ provide: opts.configClass, useValue: opts.config }] : []),
      { provide: SERVICE_NAME, useValue: opts.name },
      { provide: SERVICE_ENV, useValue: Object.freeze({ ...opts.env }) },
      { provide: SERVICE_MODE, useValue: opts.mode ?? 'serve' },
      { provide: MetricsService, useValue: opts.metrics },
      HealthRegistry,
    ];
    return {
      module: PlatformModule,
      // pino-http already ran as the first middleware (it sets req.id and req.log); nestjs-pino only
      // binds that request logger to the async context so `Logger`/`PinoLogger` log with the request id.
      imports: [LoggerModule.forRoot({ pinoHttp: { logger: opts.logger }, useExisting: true })],
      providers,
      exports: [...providers.map((p) => ('provide' in p ? p.provide : p)), LoggerModule],
    };
  }
}
