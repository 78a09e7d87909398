export { DatabaseModule, DATABASE_RUNTIME, DATABASE_MODULE_OPTIONS, READINESS_TIMEOUT_MS, type DatabaseModuleOptions, type DatabaseRuntime } from './database.module';
export { buildDataSourceOptions, poolSettingsFrom, DEFAULT_POOL, type PoolSettings, type BuildOptionsInput, type EntityClass, type MigrationClass } from './data-source-options';
export { schemaOf, schemaOfDataSource, ensureSchema, assertSchemaName } from './schema';
export { runMigrations, pendingMigrations, shouldMigrateOnStart, MIGRATION_LOCK_NAMESPACE } from './migrations';
export {
  ensureEmbeddedPostgres,
  acquireEmbeddedPostgres,
  releaseEmbeddedPostgres,
  stopEmbeddedPostgres,
  type EmbeddedPostgres,
} from './embedded-postgres';
export { Database } from './database';
export { Transactions } from './transactions';
export { rowsOf } from './rows';
export { PollingWorker } from './polling-worker';
export { GroupCommit, type GroupCommitOptions } from './group-commit';
export { claimDue, type ClaimDueOptions, type ClaimLease } from './claim-due';
export { PreparedStatements } from './prepared-statements';
export { isDatabaseConnectionLoss, databaseUnavailable, asDatabaseUnavailable, DATABASE_RETRY_AFTER_SECONDS } from './connection-loss';
