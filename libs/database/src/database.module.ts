import { Inject, Injectable, Logger, Module, type DynamicModule, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DATABASE_LOSS_AS_503 } from '@platform/errors';
import { BaseConfig, HealthRegistry, MIGRATION_RUNNER, SERVICE_NAME, type MigrationRunner } from '@platform/platform';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { buildDataSourceOptions, poolSettingsFrom, type EntityClass, type MigrationClass, type PoolSettings } from './data-source-options';
import { Database } from './database';
import { Transactions } from './transactions';
import { acquireEmbeddedPostgres, releaseEmbeddedPostgres } from './embedded-postgres';
import { runMigrations, shouldMigrateOnStart } from './migrations';
import { assertSchemaName, ensureSchema } from './schema';

export interface DatabaseModuleOptions {
  entities: EntityClass[];
  migrations: MigrationClass[];
  /** Schema when neither DATABASE_SCHEMA nor ServiceDefinition.schema gives one. */
  schema?: string;
  /** Pool overrides (the DB_* variables still win). */
  pool?: Partial<PoolSettings>;
}

/** What the module resolved at start, for the readiness check, shutdown and the migrate command. */
export interface DatabaseRuntime {
  schema: string;
  embedded: boolean;
  dataDir: string;
  migrateOnStart: boolean;
}

export const DATABASE_RUNTIME = 'PLATFORM_DATABASE_RUNTIME';
export const DATABASE_MODULE_OPTIONS = 'PLATFORM_DATABASE_MODULE_OPTIONS';

/** Readiness `SELECT 1` fails after this long. */
export const READINESS_TIMEOUT_MS = 2_000;

function resolveRuntime(config: BaseConfig, opts: DatabaseModuleOptions): DatabaseRuntime {
  const schema = assertSchemaName(
    config.DATABASE_SCHEMA ?? opts.schema,
    'The database schema (DATABASE_SCHEMA, ServiceDefinition.schema or DatabaseModule.forRoot({ schema }))',
  );
  return {
    schema,
    embedded: !config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    migrateOnStart: shouldMigrateOnStart({ NODE_ENV: config.NODE_ENV, DATABASE_URL: config.DATABASE_URL, DB_MIGRATE_ON_START: config.DB_MIGRATE_ON_START }),
  };
}

const logger = new Logger('DatabaseModule');

/**
 * Opens the DataSource: connects, creates the schema if missing and, when migrations run at start,
 * applies them (advisory lock), so that no provider sees the DataSource before its tables exist.
 */
async function openDataSource(options: DataSourceOptions, runtime: DatabaseRuntime): Promise<DataSource> {
  const ds = new DataSource(options);
  try {
    await ds.initialize();
  } catch (err) {
    throw new Error(
      `Cannot connect to PostgreSQL at ${describeServer((options as { url?: string }).url)}${runtime.embedded ? ' (embedded PGlite)' : ''}: ${(err as Error).message}. ` +
        'Check DATABASE_URL (unset it to use the embedded database under DATA_DIR).',
      { cause: err },
    );
  }
  try {
    await ensureSchema(ds, runtime.schema);
    if (runtime.migrateOnStart) {
      const applied = await runMigrations(ds);
      if (applied.length) logger.log(`applied ${applied.length} migration(s) to schema ${runtime.schema}: ${applied.join(', ')}`);
    }
    return ds;
  } catch (err) {
    await ds.destroy().catch(() => undefined);
    throw err;
  }
}

/** host:port/database of a URL, never its credentials. */
function describeServer(url: string | undefined): string {
  if (!url) return '(no URL)';
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    return '(unparsable DATABASE_URL)';
  }
}

@Injectable()
class DatabaseLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(
    private readonly dataSource: DataSource,
    private readonly health: HealthRegistry,
    @Inject(DATABASE_RUNTIME) private readonly runtime: DatabaseRuntime,
  ) {}

  onModuleInit(): void {
    this.health.register('database', () => this.ping(), { timeoutMs: READINESS_TIMEOUT_MS });
  }

  private async ping(): Promise<void> {
    if (!this.dataSource.isInitialized) throw new Error('the database connection is closed');
    await this.dataSource.query('SELECT 1');
  }

  /** TypeOrmModule destroys the DataSource; the embedded server stops when its last service is gone. */
  async onApplicationShutdown(): Promise<void> {
    this.health.unregister('database');
    if (this.runtime.embedded) {
      if (this.dataSource.isInitialized) await this.dataSource.destroy().catch(() => undefined);
      await releaseEmbeddedPostgres(this.runtime.dataDir);
    }
  }
}

@Injectable()
class DatabaseMigrationRunner implements MigrationRunner {
  constructor(private readonly dataSource: DataSource) {}

  run(): Promise<string[]> {
    return runMigrations(this.dataSource);
  }
}

/**
 * TypeORM on PostgreSQL for one service, configured from BaseConfig: DATABASE_URL, or the embedded
 * PGlite under DATA_DIR when it is unset; the service's own schema (DATABASE_SCHEMA, which the
 * platform defaults to ServiceDefinition.schema), created if missing; migrations table inside it;
 * never `synchronize`. Registers the `database` readiness check and the platform's MIGRATION_RUNNER.
 * Global: repositories inject `Database` (their one way to the database), services and use cases
 * `Transactions` (the narrow transaction port).
 */
@Module({})
export class DatabaseModule {
  static forRoot(opts: DatabaseModuleOptions): DynamicModule {
    const runtimeProvider = {
      provide: DATABASE_RUNTIME,
      inject: [BaseConfig],
      useFactory: (config: BaseConfig) => resolveRuntime(config, opts),
    };
    return {
      module: DatabaseModule,
      global: true,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [BaseConfig, { token: SERVICE_NAME, optional: true }],
          useFactory: async (config: BaseConfig, serviceName?: string) => {
            const runtime = resolveRuntime(config, opts);
            const pool = poolSettingsFrom(
              {
                DB_POOL_MAX: config.DB_POOL_MAX,
                DB_CONNECT_TIMEOUT_MS: config.DB_CONNECT_TIMEOUT_MS,
                DB_STATEMENT_TIMEOUT_MS: config.DB_STATEMENT_TIMEOUT_MS,
                DB_IDLE_TIMEOUT_MS: config.DB_IDLE_TIMEOUT_MS,
              },
              opts.pool,
            );
            const url = config.DATABASE_URL ?? (await acquireEmbeddedPostgres(config.DATA_DIR)).url;
            return {
              ...buildDataSourceOptions({
                url,
                schema: runtime.schema,
                applicationName: serviceName ?? runtime.schema,
                entities: opts.entities,
                migrations: opts.migrations,
                pool,
                embedded: runtime.embedded,
              }),
              // Fail start-up with the real error instead of retrying for half a minute.
              retryAttempts: 0,
              runtime,
            };
          },
          dataSourceFactory: async (options) => {
            const { runtime, ...typeorm } = options as DataSourceOptions & { runtime: DatabaseRuntime };
            try {
              return await openDataSource(typeorm as DataSourceOptions, runtime);
            } catch (err) {
              // The app will not start, so its shutdown hook never releases the embedded instance it
              // acquired: release it here, or the last app's exit would leave PGlite running.
              if (runtime.embedded) await releaseEmbeddedPostgres(runtime.dataDir).catch(() => undefined);
              throw err;
            }
          },
        }),
      ],
      providers: [
        { provide: DATABASE_MODULE_OPTIONS, useValue: opts },
        runtimeProvider,
        DatabaseLifecycle,
        { provide: MIGRATION_RUNNER, useClass: DatabaseMigrationRunner },
        // A lost connection answers 503 DATABASE_UNAVAILABLE (Retry-After) rather than a 500 (the platform tells the app's error filter).
        { provide: DATABASE_LOSS_AS_503, useValue: true },
        { provide: Database, inject: [DataSource], useFactory: (ds: DataSource) => new Database(ds) },
        { provide: Transactions, inject: [Database], useFactory: (db: Database) => new Transactions(db) },
      ],
      exports: [TypeOrmModule, MIGRATION_RUNNER, DATABASE_RUNTIME, Database, Transactions],
    };
  }
}
