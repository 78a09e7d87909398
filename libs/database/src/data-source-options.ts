import type { DataSourceOptions, EntitySchema, MigrationInterface } from 'typeorm';
import { HotStatements, hotStatementsClient } from './hot-statements';
import { assertSchemaName } from './schema';
import { NestTypeOrmLogger, SLOW_QUERY_MS } from './typeorm-logger';

/** An entity class (or an EntitySchema). */
export type EntityClass = (new (...args: never[]) => unknown) | EntitySchema;
/** A migration class (its name must end in a 13-digit timestamp, as TypeORM requires). */
export type MigrationClass = new (...args: never[]) => MigrationInterface;

export interface PoolSettings {
  /** Connections per service (pg pool `max`); DB_POOL_MAX, default 10. */
  max: number;
  /** Waiting for a connection (and connecting) fails after this; DB_CONNECT_TIMEOUT_MS, default 10000. */
  connectionTimeoutMs: number;
  /** Server-side statement_timeout of each connection; DB_STATEMENT_TIMEOUT_MS, default 30000 (0 = none). */
  statementTimeoutMs: number;
  /** Idle connections are closed after this; DB_IDLE_TIMEOUT_MS, default 30000. */
  idleTimeoutMs: number;
}

export const DEFAULT_POOL: PoolSettings = { max: 10, connectionTimeoutMs: 10_000, statementTimeoutMs: 30_000, idleTimeoutMs: 30_000 };

const POOL_VARIABLES: Record<keyof PoolSettings, string> = {
  max: 'DB_POOL_MAX',
  connectionTimeoutMs: 'DB_CONNECT_TIMEOUT_MS',
  statementTimeoutMs: 'DB_STATEMENT_TIMEOUT_MS',
  idleTimeoutMs: 'DB_IDLE_TIMEOUT_MS',
};

/** Reads the DB_* pool variables; a bad value throws an error naming the variable. */
export function poolSettingsFrom(env: Record<string, unknown>, overrides: Partial<PoolSettings> = {}): PoolSettings {
  const settings: PoolSettings = { ...DEFAULT_POOL, ...overrides };
  for (const [key, variable] of Object.entries(POOL_VARIABLES) as Array<[keyof PoolSettings, string]>) {
    const raw = env[variable];
    if (raw === undefined || raw === '' || raw === null) continue;
    const value = Number(raw);
    const min = key === 'max' ? 1 : 0;
    if (!Number.isInteger(value) || value < min) {
      throw new Error(`${variable} must be an integer ≥ ${min}, got ${JSON.stringify(raw)}`);
    }
    settings[key] = value;
  }
  return settings;
}

export interface BuildOptionsInput {
  url: string;
  schema: string;
  applicationName: string;
  entities: EntityClass[];
  migrations: MigrationClass[];
  pool?: PoolSettings;
  /** The embedded instance multiplexes one session: server-side session settings would leak across services. */
  embedded?: boolean;
}

/**
 * The statements the process runs again and again, named by every pool the process opens on a
 * PostgreSQL server (not on the embedded one: its connections share one session, where names would
 * collide).
 */
const hotStatements = new HotStatements();
const HotStatementsClient = hotStatementsClient(hotStatements);

/**
 * The TypeORM options every service uses (never `synchronize`; migrations table inside the schema;
 * on a PostgreSQL server, hot statements planned once per connection: HotStatements).
 */
export function buildDataSourceOptions(input: BuildOptionsInput): DataSourceOptions {
  const schema = assertSchemaName(input.schema, 'DATABASE_SCHEMA');
  const pool = input.pool ?? DEFAULT_POOL;
  return {
    type: 'postgres',
    url: input.url,
    schema,
    applicationName: input.applicationName,
    entities: input.entities,
    migrations: input.migrations,
    migrationsTableName: 'migrations',
    migrationsRun: false,
    migrationsTransactionMode: 'all',
    synchronize: false,
    dropSchema: false,
    // gen_random_uuid() is built in since PostgreSQL 13; never try CREATE EXTENSION at connect.
    installExtensions: false,
    uuidExtension: 'pgcrypto',
    logger: new NestTypeOrmLogger(),
    maxQueryExecutionTime: SLOW_QUERY_MS,
    extra: {
      max: pool.max,
      connectionTimeoutMillis: pool.connectionTimeoutMs,
      idleTimeoutMillis: pool.idleTimeoutMs,
      ...(input.embedded || pool.statementTimeoutMs === 0 ? {} : { statement_timeout: pool.statementTimeoutMs }),
      ...(input.embedded ? {} : { Client: HotStatementsClient }),
    },
  } as DataSourceOptions;
}
