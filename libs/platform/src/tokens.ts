/** Injection token of the app's name (`ServiceDefinition.name`). */
export const SERVICE_NAME = 'PLATFORM_SERVICE_NAME';

/**
 * Injection token of the environment the app was created from (`startService(def, { env })`, else
 * process.env). Libs that read tuning variables not declared on the config class read them here, not
 * from process.env: several apps with different environments can share one process.
 */
export const SERVICE_ENV = 'PLATFORM_SERVICE_ENV';

/**
 * Injection token of how the app runs: `serve` (listening, `startService`/`createServiceApp`) or
 * `command` (`node main.js migrate` and the app's commands: an application context that must not
 * start background work such as polling workers).
 */
export const SERVICE_MODE = 'PLATFORM_SERVICE_MODE';
export type ServiceMode = 'serve' | 'command';

/**
 * Injection token of the app's migration runner: `{ run(): Promise<string[]> }` returning the names
 * of the migrations applied. The database lib provides it; `node main.js migrate` calls it.
 */
export const MIGRATION_RUNNER = 'PLATFORM_MIGRATION_RUNNER';

export interface MigrationRunner {
  run(): Promise<string[]>;
}
