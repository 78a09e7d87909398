import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/**
 * Whether the server answering `SELECT version()` with `version` gives each connection a session of
 * its own, where statement names are the connection's: PostgreSQL does; PGlite, which serves every
 * connection from one session, does not.
 */
export function namesPerConnection(version: string): boolean {
  return !/PGlite/i.test(version);
}

/**
 * Hot statements of public endpoints (automation-api's click redirect and webhook receiver,
 * email-api's /v1/track and key lookups) as named prepared statements: PostgreSQL parses and plans each once per pooled connection instead of on every call
 * (for the click statement, planning costs more than running it). They go to the pg pool directly,
 * as TypeORM's `query` cannot name statements, so they run outside any TypeORM transaction (one
 * statement, its own commit). PGlite (embedded, and the tests' fallback) serves every connection
 * from one session, where a name prepared by one connection would collide with the next: unnamed
 * there. A PgBouncer in transaction mode in front of PostgreSQL needs protocol-level prepared
 * statements (`max_prepared_statements`, PgBouncer ≥ 1.21).
 */
export class PreparedStatements {
  /** Whether statements may be named (not PGlite); unknown until the database answered once. */
  private named?: boolean;
  private probe?: Promise<boolean>;

  constructor(private readonly ds: DataSource) {}

  /** Runs `text` under `name` (unique per text: include the schema) and answers its rows. */
  async query<R extends object>(name: string, text: string, values: unknown[]): Promise<R[]> {
    const pool = (this.ds.driver as PostgresDriver).master as Pool;
    const named = this.named ?? (await this.namesWork());
    const { rows } = await pool.query<R>(named ? { name, text, values } : { text, values });
    return rows;
  }

  private namesWork(): Promise<boolean> {
    this.probe ??= this.ds.query(`SELECT version() AS v`).then(
      ([row]: Array<{ v: string }>) => (this.named = namesPerConnection(row.v)),
      (err: unknown) => {
        this.probe = undefined; // the database did not answer: ask again with the next statement
        throw err;
      },
    );
    return this.probe;
  }
}
