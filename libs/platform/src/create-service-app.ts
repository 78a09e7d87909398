import { Module, Logger as NestLogger, type DynamicModule } from '@nestjs/common';
import { ModuleRef, NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { BaseErrorFilter, DATABASE_LOSS_AS_503 } from '@platform/errors';
import { Logger } from 'nestjs-pino';
import type { Server } from 'node:http';
import type { DestinationStream, Logger as PinoRoot } from 'pino';
import type { BaseConfig } from './config/base.config';
import { loadConfig } from './config/load-config';
import { RejectNulPipe } from './http/input-safety';
import { collectRouteLimits, DEFAULT_BODY_LIMIT } from './http/body-limits';
import { InFlightTracker, installBodyParsers, installPlatformRoutes, installRequestMiddleware } from './http/platform-http';
import { securityHeaders } from './http/security-headers';
import { applyServerTimeouts, serverTimeoutsOf } from './http/server-timeouts';
import { PlatformValidationPipe } from './http/validation';
import { runWithAppLogger } from './logging/app-context';
import { createHttpLogger, createRootLogger, logFormatFor } from './logging/logging';
import { PlatformNestLogger } from './logging/nest-logger';
import { MetricsService } from './metrics/metrics.service';
import { PlatformModule } from './platform.module';
import type { ServiceDefinition } from './service-definition';
import type { ServiceMode } from './tokens';

/** Peers whose X-Forwarded-For / -Proto are believed (Express `trust proxy`). */
export const TRUSTED_PROXIES = 'loopback, linklocal, uniquelocal';
import { setupSwagger } from './swagger/swagger';

export interface CreateServiceAppOptions {
  /** Environment to read the config from; default process.env. */
  env?: Record<string, string | undefined>;
  /** false silences the app's logs (tests). */
  logger?: boolean;
  /** Where the JSON logs go; default stdout (readable lines instead at a terminal outside production). */
  logDestination?: DestinationStream;
}

export interface ServiceApp<C extends BaseConfig> {
  app: NestExpressApplication;
  config: C;
}

/** Per-app state that shutdown needs (keyed by app, never process-global). */
interface AppState {
  tracker: InFlightTracker;
  logger: PinoRoot;
}
const states = new WeakMap<NestExpressApplication, AppState>();

/**
 * Whether a module of the app provides `token` (a lib's signal to the platform, e.g.
 * DATABASE_LOSS_AS_503). Asked of the root module's ModuleRef, not of the app: Nest runs the app's
 * own methods in its exception zone, which logs a missing provider as an error before rethrowing it.
 */
export function provides(app: NestExpressApplication, token: string): boolean {
  try {
    return app.get(ModuleRef).get(token, { strict: false }) === true;
  } catch {
    return false;
  }
}

export function appState(app: NestExpressApplication): AppState | undefined {
  return states.get(app);
}

@Module({})
class ServiceRootModule {}

/** Validates the app's config: PORT defaults to the definition's port, DATABASE_SCHEMA to its schema. */
export function loadServiceConfig<C extends BaseConfig>(def: ServiceDefinition<C>, env: Record<string, string | undefined>): C {
  return loadConfig(def.config, env, { PORT: def.port, DATABASE_SCHEMA: def.schema, REDIS_KEY_PREFIX: `${def.name}:` } as Partial<Record<keyof C, unknown>>);
}

/** The root module: the global PlatformModule, then the app's own module. */
export function serviceRootModule<C extends BaseConfig>(
  def: ServiceDefinition<C>,
  config: C,
  logger: PinoRoot,
  metrics: MetricsService,
  env: Record<string, string | undefined>,
  mode: ServiceMode = 'serve',
): DynamicModule {
  return {
    module: ServiceRootModule,
    imports: [
      PlatformModule.forRoot({ name: def.name, config, configClass: def.config, logger, metrics, env, mode }),
      def.module(config),
    ],
  };
}

/**
 * Builds and initialises one app (not listening): config, logging with request ids, metrics, health,
 * body parsers, ValidationPipe, the definition's error filter, its `configure`, and Swagger.
 * Throws ConfigValidationError when the environment is invalid.
 */
export async function createServiceApp<C extends BaseConfig>(
  def: ServiceDefinition<C>,
  opts: CreateServiceAppOptions = {},
): Promise<ServiceApp<C>> {
  const env = opts.env ?? process.env;
  const config = loadServiceConfig(def, env);
  const logger = createRootLogger(def.name, opts.logger === false ? 'silent' : config.LOG_LEVEL, opts.logDestination, logFormatFor(config.NODE_ENV));
  return runWithAppLogger(logger, () => buildApp(def, config, logger, env));
}

async function buildApp<C extends BaseConfig>(
  def: ServiceDefinition<C>,
  config: C,
  logger: PinoRoot,
  env: Record<string, string | undefined>,
): Promise<ServiceApp<C>> {
  const metrics = new MetricsService(def.name);
  let app: NestExpressApplication;
  try {
    app = await NestFactory.create<NestExpressApplication>(serviceRootModule(def, config, logger, metrics, env), {
      bodyParser: false,
      bufferLogs: true,
      abortOnError: false,
    });
  } catch (err) {
    // The buffer of start-up logs is process-wide: print and detach it, or every later log is held back.
    NestLogger.flush();
    throw err;
  }
  try {
    app.useLogger(new PlatformNestLogger(app.get(Logger)));
    app.flushLogs();
    // X-Forwarded-* is believed only from the gateway, an ingress or a sidecar (loopback and private
    // networks), so a client cannot choose its own req.ip (rate limits, logs) by sending the header.
    app.set('trust proxy', TRUSTED_PROXIES);
    app.disable('x-powered-by');
    // Express's own last-resort handler shows stacks outside production: it reads the app's env, not process.env.
    app.set('env', config.NODE_ENV);
    const production = config.NODE_ENV === 'production';
    // Slow clients (slowloris) are cut off: headers, whole request, idle keep-alive (raw listeners that
    // take the server over may change the request timeout in `configure`).
    applyServerTimeouts(app.getHttpServer() as Server, serverTimeoutsOf(config));

    const tracker = new InFlightTracker();
    states.set(app, { tracker, logger });
    installRequestMiddleware(app, createHttpLogger(logger), metrics, tracker);
    if (def.securityHeaders !== false) app.use(securityHeaders(production, def.securityHeaders));
    installPlatformRoutes(app, metrics, production);
    const parsers = def.bodyParser !== false ? installBodyParsers(app, def.bodyLimit ?? DEFAULT_BODY_LIMIT) : undefined;

    app.useGlobalPipes(
      // First: PostgreSQL cannot store NUL characters or unpaired surrogates, and validators such as
      // isEmail throw (URIError) on the latter — refused here, in the app's error shape, never a 500.
      new RejectNulPipe(),
      // whitelist, forbidNonWhitelisted, transform, the app's error shape; items of nested arrays must be objects.
      new PlatformValidationPipe(),
    );
    if (def.errorFilter) {
      const filter = def.errorFilter(config);
      // Production answers carry no internal message (see @platform/errors); stacks never.
      if (filter instanceof BaseErrorFilter) {
        filter.production = production;
        filter.databaseLoss = provides(app, DATABASE_LOSS_AS_503);
      }
      app.useGlobalFilters(filter);
    }
    await def.configure?.(app, config);
    setupSwagger(app, def, config);
    await app.init();
    // The routes are known now: those with @BodyLimit() get their own limit.
    parsers?.setRoutes(collectRouteLimits(app));
    return { app, config };
  } catch (err) {
    NestLogger.flush();
    await app.close().catch(() => undefined);
    throw err;
  }
}
