import { MigrationExecutor, type DataSource } from 'typeorm';
import { ensureSchema, schemaOfDataSource } from './schema';

/** First key of the two-key advisory lock; the second is `hashtext(schema)`. */
export const MIGRATION_LOCK_NAMESPACE = 720_240;

const LOCKS_KEY = Symbol.for('platform.database.migrationLocks');
type Chains = Map<string, Promise<unknown>>;

/**
 * Serialises callers within this process. On a real server the advisory lock alone suffices, but the
 * embedded PGlite has a single session shared by every connection, where advisory locks never block.
 */
function inProcessLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const g = globalThis as unknown as Record<symbol, Chains | undefined>;
  const chains = (g[LOCKS_KEY] ??= new Map());
  const previous = chains.get(key) ?? Promise.resolve();
  const run = previous.then(fn, fn);
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  chains.set(key, settled);
  void settled.then(() => {
    if (chains.get(key) === settled) chains.delete(key);
  });
  return run;
}

function lockKey(ds: DataSource, schema: string): string {
  const o = ds.options as { url?: string; host?: string; port?: number; database?: string };
  return `${o.url ?? `${o.host}:${o.port}/${o.database}`}#${schema}`;
}

/**
 * Applies the pending migrations of `ds` in one transaction and returns their names (empty when
 * none were pending). Creates the schema if missing. Holds `pg_advisory_lock` keyed by the schema
 * for the whole run, so concurrent runners (replicas starting together, the migration Job) apply
 * each migration once: the second waits, then finds nothing pending.
 */
export async function runMigrations(ds: DataSource): Promise<string[]> {
  const schema = schemaOfDataSource(ds);
  return inProcessLock(lockKey(ds, schema), async () => {
    const runner = ds.createQueryRunner('master');
    await runner.connect();
    let locked = false;
    try {
      // A long migration (or a long wait for another runner) must not hit statement_timeout.
      await runner.query('SET statement_timeout = 0');
      await runner.query('SELECT pg_advisory_lock($1, hashtext($2))', [MIGRATION_LOCK_NAMESPACE, schema]);
      locked = true;
      await ensureSchema(ds, schema);
      const executor = new MigrationExecutor(ds, runner);
      executor.transaction = 'all';
      const applied = await executor.executePendingMigrations();
      return applied.map((m) => m.name);
    } finally {
      try {
        if (locked) await runner.query('SELECT pg_advisory_unlock($1, hashtext($2))', [MIGRATION_LOCK_NAMESPACE, schema]);
        await runner.query('RESET statement_timeout');
      } finally {
        await runner.release();
      }
    }
  });
}

/** Names of migrations known to `ds` that are not applied yet. */
export async function pendingMigrations(ds: DataSource): Promise<string[]> {
  const runner = ds.createQueryRunner('master');
  try {
    return (await new MigrationExecutor(ds, runner).getPendingMigrations()).map((m) => m.name);
  } finally {
    await runner.release();
  }
}

/**
 * Whether a service applies migrations at start: yes, except in production with a real server (there
 * the migration Job runs `node main.js migrate` once per deployment). `DB_MIGRATE_ON_START` overrides.
 */
export function shouldMigrateOnStart(env: {
  NODE_ENV?: string;
  DATABASE_URL?: string;
  DB_MIGRATE_ON_START?: string | boolean;
}): boolean {
  const override = env.DB_MIGRATE_ON_START;
  if (override !== undefined && override !== '') {
    if (typeof override === 'boolean') return override;
    if (/^(true|1|yes|on)$/i.test(override)) return true;
    if (/^(false|0|no|off)$/i.test(override)) return false;
    throw new Error(`DB_MIGRATE_ON_START must be true or false, got ${JSON.stringify(override)}`);
  }
  return !(env.NODE_ENV === 'production' && !!env.DATABASE_URL);
}
