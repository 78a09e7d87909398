import { Injectable } from '@nestjs/common';
import { schemaOfDataSource, withTransaction } from '@platform/database';
import type { Pool } from 'pg';
import { DataSource, type EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/**
 * Raw SQL access for the repositories: schema-qualified table names and a query helper that runs on
 * the caller's transaction manager when one is given.
 */
@Injectable()
export class Db {
  readonly schema: string;
  /** Whether named prepared statements can be used (not on PGlite); asked once. */
  private namedStatements?: Promise<boolean>;

  constructor(readonly dataSource: DataSource) {
    this.schema = schemaOfDataSource(dataSource);
  }

  /** `email.contacts` for `contacts`. */
  t(table: string): string {
    return `${this.schema}.${table}`;
  }

  /** Rows of a SELECT or of an INSERT/UPDATE/DELETE … RETURNING (TypeORM returns `[rows, count]` for the latter two). */
  async rows<T>(sql: string, params: unknown[] = [], manager?: EntityManager): Promise<T[]> {
    const raw = await (manager ?? this.dataSource.manager).query(sql, params);
    if (Array.isArray(raw) && raw.length === 2 && Array.isArray(raw[0]) && typeof raw[1] === 'number') return raw[0] as T[];
    return raw as T[];
  }

  async one<T>(sql: string, params: unknown[] = [], manager?: EntityManager): Promise<T | null> {
    return (await this.rows<T>(sql, params, manager))[0] ?? null;
  }

  /** Affected row count of an UPDATE or DELETE without RETURNING. */
  async affected(sql: string, params: unknown[] = [], manager?: EntityManager): Promise<number> {
    const raw = await (manager ?? this.dataSource.manager).query(sql, params);
    if (Array.isArray(raw) && typeof raw[1] === 'number') return raw[1];
    return 0;
  }

  /**
   * Rows of a statement run on its own (autocommit, so it is atomic by itself) as a named prepared
   * statement: parsed and planned once per pooled connection instead of on every call, and without
   * TypeORM's query runner around it. For the hot paths only (`POST /v1/track`, key lookups), where
   * planning and round trips cost more than running. `name` must stand for one fixed `text`.
   *
   * PGlite (the embedded database, and the tests' fallback) serves every connection from one
   * session, where a name prepared through one connection would collide with the next: unnamed there.
   */
  async prepared<T>(name: string, text: string, params: unknown[]): Promise<T[]> {
    const pool = (this.dataSource.driver as PostgresDriver).master as Pool;
    const named = await this.canName();
    const { rows } = await pool.query(named ? { name: `${name}_${this.schema}`, text, values: params } : { text, values: params });
    return rows as T[];
  }

  private canName(): Promise<boolean> {
    this.namedStatements ??= this.dataSource.query(`SELECT version() AS v`).then(
      ([row]: Array<{ v: string }>) => !/PGlite/i.test(row.v),
      (err: unknown) => {
        this.namedStatements = undefined; // the database did not answer: ask again next time
        throw err;
      },
    );
    return this.namedStatements;
  }

  transaction<T>(fn: (m: EntityManager) => Promise<T>): Promise<T> {
    return withTransaction(this.dataSource, fn);
  }
}
