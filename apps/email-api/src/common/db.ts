import { Injectable } from '@nestjs/common';
import { PreparedStatements, schemaOfDataSource, withTransaction } from '@platform/database';
import { DataSource, type EntityManager } from 'typeorm';

/**
 * Raw SQL access for the repositories: schema-qualified table names and a query helper that runs on
 * the caller's transaction manager when one is given.
 */
@Injectable()
export class Db {
  readonly schema: string;
  private readonly statements: PreparedStatements;

  constructor(readonly dataSource: DataSource) {
    this.schema = schemaOfDataSource(dataSource);
    this.statements = new PreparedStatements(dataSource);
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
   * Unnamed on PGlite (see PreparedStatements in @platform/database).
   */
  async prepared<T>(name: string, text: string, params: unknown[]): Promise<T[]> {
    return this.statements.query<T & object>(`${name}_${this.schema}`, text, params);
  }

  transaction<T>(fn: (m: EntityManager) => Promise<T>): Promise<T> {
    return withTransaction(this.dataSource, fn);
  }
}
