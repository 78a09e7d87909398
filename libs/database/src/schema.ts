import type { DataSource, QueryRunner } from 'typeorm';

/** A lower-case SQL identifier: safe to splice into DDL without quoting. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Throws a clear error unless `name` is a plain lower-case SQL identifier. */
export function assertSchemaName(name: string | undefined, source = 'schema'): string {
  if (!name || !SCHEMA_NAME.test(name)) {
    throw new Error(
      `${source} must be a lower-case SQL identifier (letters, digits, underscore; at most 63 characters), got ${JSON.stringify(name)}`,
    );
  }
  return name;
}

/**
 * The schema of the data source a migration runs on. Migrations qualify every table with it
 * (`CREATE TABLE ${schemaOf(q)}.users`): on the embedded instance all services share one session,
 * so `search_path` cannot keep them apart, and the same migration then runs on any server.
 */
export function schemaOf(queryRunner: QueryRunner): string {
  const schema = (queryRunner.connection.options as { schema?: string }).schema;
  return assertSchemaName(schema, 'The data source has no schema option; DatabaseModule sets it. schema');
}

/** The schema configured on a data source (see `schemaOf`). */
export function schemaOfDataSource(ds: DataSource): string {
  return assertSchemaName((ds.options as { schema?: string }).schema, 'DataSource schema');
}

/** Creates the schema if it is missing (idempotent, safe when several services start at once). */
export async function ensureSchema(ds: DataSource, schema = schemaOfDataSource(ds)): Promise<void> {
  assertSchemaName(schema);
  try {
    await ds.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  } catch (err) {
    // Two concurrent CREATE SCHEMA IF NOT EXISTS can race on the catalog's unique index.
    if ((err as { code?: string }).code !== '23505') throw err;
  }
}
