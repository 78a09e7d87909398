import { Logger as NestLogger, type INestApplicationContext, type Type } from '@nestjs/common';
import { Logger as PinoNestLogger } from 'nestjs-pino';
import { NestFactory } from '@nestjs/core';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { BaseConfig } from './config/base.config';
import { ConfigValidationError } from './config/load-config';
import { appState, loadServiceConfig, serviceRootModule } from './create-service-app';
import { runWithAppLogger } from './logging/app-context';
import { createRootLogger, logFormatFor } from './logging/logging';
import { PlatformNestLogger } from './logging/nest-logger';
import { MetricsService } from './metrics/metrics.service';
import type { ServiceDefinition } from './service-definition';
import { startService, type RunningService } from './start-service';
import { MIGRATION_RUNNER, type MigrationRunner } from './tokens';

export interface RunServiceOptions {
  argv?: string[];
  env?: Record<string, string | undefined>;
}

/** Exit codes: 0 done, 1 failure (bad config, start-up or command error), 2 unknown command. */
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/**
 * The whole of `main.ts`: `void runService(def)`.
 *   `node main.js`            → start, listen on PORT, stop cleanly on SIGTERM/SIGINT (exit 0)
 *   `node main.js migrate`    → run pending migrations and exit 0
 *   `node main.js <command>`  → def.commands[command]
 * A config error prints the list of bad variables (no stack) and exits 1.
 */
export async function runService<C extends BaseConfig>(def: ServiceDefinition<C>, opts: RunServiceOptions = {}): Promise<void> {
  const code = await runCommand(def, opts.argv ?? process.argv.slice(2), opts.env ?? process.env);
  if (code !== undefined) process.exit(code);
}

/** Runs the command; resolves with the exit code, or undefined while the server keeps running. */
async function runCommand<C extends BaseConfig>(
  def: ServiceDefinition<C>,
  argv: string[],
  env: Record<string, string | undefined>,
): Promise<number | undefined> {
  const [command, ...args] = argv;
  try {
    if (!command || command === 'start') {
      await serve(def, env);
      return undefined;
    }
    if (command === 'help' || command === '--help' || command === '-h') {
      process.stdout.write(usage(def));
      return 0;
    }
    if (command === 'migrate') {
      await withContext(def, env, async (ctx) => {
        await migrate(def, ctx);
      });
      return 0;
    }
    const custom = def.commands?.[command];
    if (!custom) {
      process.stderr.write(`${def.name}: unknown command "${command}"\n\n${usage(def)}`);
      return EXIT_USAGE;
    }
    await withContext(def, env, (ctx, config) => custom.run(ctx, args, config));
    return 0;
  } catch (err) {
    if (err instanceof ConfigValidationError) {
      process.stderr.write(`${def.name}: ${err.message}\n`);
    } else {
      process.stderr.write(`${def.name}: ${command ?? 'start'} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    }
    return EXIT_FAILURE;
  }
}

export function usage(def: ServiceDefinition<any>): string {
  const lines = [
    `usage: node main.js [command] [args...]`,
    ``,
    `commands:`,
    `  (none), start   start ${def.name} and listen on PORT (default ${def.port})`,
    `  migrate         run pending database migrations and exit`,
    ...Object.entries(def.commands ?? {}).map(([name, c]) => `  ${name.padEnd(15)} ${c.description}`),
    ``,
  ];
  return lines.join('\n');
}

async function serve<C extends BaseConfig>(def: ServiceDefinition<C>, env: Record<string, string | undefined>): Promise<void> {
  const running = await startService(def, { env });
  const log = appState(running.app)?.logger ?? createRootLogger(def.name, running.config.LOG_LEVEL, undefined, logFormatFor(running.config.NODE_ENV));
  log.info({ url: running.url }, `${def.name} listening on ${running.url}`);
  installSignalHandlers(running, log);
  // Node's default for both is to exit 1 with a plain-text stack; log it as JSON first.
  process.on('uncaughtException', (err) => {
    log.fatal({ err }, 'uncaught exception: exiting');
    process.exit(EXIT_FAILURE);
  });
  process.on('unhandledRejection', (reason) => {
    log.fatal({ err: reason }, 'unhandled promise rejection: exiting');
    process.exit(EXIT_FAILURE);
  });
}

function installSignalHandlers(running: RunningService<any>, log: ReturnType<typeof createRootLogger>): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) {
      log.warn({ signal }, 'second signal: exiting without waiting');
      process.exit(EXIT_FAILURE);
      return;
    }
    stopping = true;
    log.info({ signal }, 'shutting down: draining requests, closing consumers and pools');
    running.close().then(
      () => {
        log.info('stopped');
        process.off('SIGTERM', onSignal);
        process.off('SIGINT', onSignal);
        process.exit(0);
      },
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(EXIT_FAILURE);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/** An application context (no HTTP server) for migrate and custom commands. */
async function withContext<C extends BaseConfig>(
  def: ServiceDefinition<C>,
  env: Record<string, string | undefined>,
  fn: (ctx: INestApplicationContext, config: C) => Promise<void>,
): Promise<void> {
  const config = loadServiceConfig(def, env);
  const logger = createRootLogger(def.name, config.LOG_LEVEL, undefined, logFormatFor(config.NODE_ENV));
  let ctx: INestApplicationContext;
  try {
    ctx = await runWithAppLogger(logger, () =>
      NestFactory.createApplicationContext(serviceRootModule(def, config, logger, new MetricsService(def.name), env, 'command'), {
        abortOnError: false,
        bufferLogs: true,
      }),
    );
  } catch (err) {
    NestLogger.flush();
    throw err;
  }
  ctx.useLogger(new PlatformNestLogger(ctx.get(PinoNestLogger)));
  ctx.flushLogs();
  try {
    await runWithAppLogger(logger, () => fn(ctx, config));
  } finally {
    await ctx.close();
  }
}

/**
 * Runs the app's migrations: the database lib's runner (MIGRATION_RUNNER, which holds the advisory
 * lock) when provided, else TypeORM's own runner on the app's DataSource; says so when there is no database.
 */
export async function migrate(def: ServiceDefinition<any>, ctx: INestApplicationContext): Promise<string[]> {
  const runner = optional<MigrationRunner>(ctx, MIGRATION_RUNNER);
  let applied: string[];
  if (runner) {
    applied = await runner.run();
  } else {
    const dataSource = optional<DataSource>(ctx, getDataSourceToken() as Type<DataSource> | string);
    if (!dataSource) {
      process.stdout.write(`${def.name} has no database: nothing to migrate\n`);
      return [];
    }
    applied = (await dataSource.runMigrations({ transaction: 'each' })).map((m) => m.name);
  }
  process.stdout.write(
    applied.length ? `${def.name}: applied ${applied.length} migration(s): ${applied.join(', ')}\n` : `${def.name}: database is up to date\n`,
  );
  return applied;
}

function optional<T>(ctx: INestApplicationContext, token: string | symbol | Type<unknown>): T | undefined {
  try {
    return ctx.get<T>(token as string, { strict: false });
  } catch {
    return undefined;
  }
}
