import { Propagation, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import type { Pool } from 'pg';
import type { DataSource, EntityManager, EntityTarget, ObjectLiteral, Repository } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { claimDue, type ClaimDueOptions } from './claim-due';
import { PreparedStatements } from './prepared-statements';
import { rowsOf } from './rows';
import { schemaOfDataSource } from './schema';

let hosts = 0;

/**
 * The one way a repository reaches its service's database (docs/lib-contracts.md, "Data access").
 *
 * Every query made through it joins the transaction that is open in the current async context, so a
 * service spans two repositories with `db.transaction(() => …)` and never passes an EntityManager
 * around. Transactions are propagated by @nestjs-cls/transactional with its TypeORM adapter, one
 * TransactionHost per Database under its own connection name: several services in one process
 * (`npm start`, tests) never see each other's transaction, even where an in-process event handler
 * runs in the async context of another service's request.
 *
 * Raw SQL results are read with `rows` / `one` / `affected`, which hide TypeORM's `[rows, count]`
 * shape of UPDATE/DELETE … RETURNING; hot statements use `prepared`.
 */
export class Database {
  /** The service's schema; `table('users')` is `auth.users`. */
  readonly schema: string;
  private readonly host: TransactionHost<TransactionalAdapterTypeOrm>;
  private readonly statements: PreparedStatements;

  constructor(readonly dataSource: DataSource) {
    this.schema = schemaOfDataSource(dataSource);
    this.statements = new PreparedStatements(dataSource);
    const adapter = new TransactionalAdapterTypeOrm({ dataSourceToken: null });
    this.host = new TransactionHost<TransactionalAdapterTypeOrm>({
      ...adapter.optionsFactory(dataSource),
      connectionName: `database-${++hosts}`,
      enableTransactionProxy: false,
      defaultTxOptions: {},
      extraProviderTokens: [],
    });
  }

  /** The manager of the open transaction, or the pool's when there is none. */
  get manager(): EntityManager {
    return this.host.tx;
  }

  /** True inside `transaction(…)`. */
  get inTransaction(): boolean {
    return this.host.isTransactionActive();
  }

  /** A TypeORM repository of an entity, bound to the open transaction (if any). */
  repository<E extends ObjectLiteral>(entity: EntityTarget<E>): Repository<E> {
    return this.manager.getRepository(entity);
  }

  /** The schema-qualified name of a table: `email.contacts` for `contacts`. */
  table(name: string): string {
    return `${this.schema}.${name}`;
  }

  /** Rows of a SELECT, or of an INSERT/UPDATE/DELETE … RETURNING. */
  async rows<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return rowsOf<T>(await this.manager.query(sql, params as unknown[]));
  }

  /** The first row, or null. */
  async one<T>(sql: string, params: readonly unknown[] = []): Promise<T | null> {
    return (await this.rows<T>(sql, params))[0] ?? null;
  }

  /** How many rows an UPDATE or DELETE (without RETURNING) changed. */
  async affected(sql: string, params: readonly unknown[] = []): Promise<number> {
    const raw = await this.manager.query(sql, params as unknown[]);
    return Array.isArray(raw) && typeof raw[1] === 'number' ? raw[1] : 0;
  }

  /**
   * A hot statement as a named prepared statement (planned once per pooled connection), run on its
   * own connection and commit, so it must be atomic by itself (put the whole write in one statement
   * with data-modifying CTEs). `name` stands for one fixed `text`; the schema is appended, so two
   * services (or test schemas) never share a name. Refused inside `transaction(…)`: it could not
   * join it, and on the embedded database (one session) it would wait for the transaction that
   * waits for it.
   */
  async prepared<T extends object>(name: string, text: string, params: readonly unknown[]): Promise<T[]> {
    if (this.inTransaction) {
      throw new Error(`Database.prepared(${name}) inside a transaction: prepared statements run on their own; call it outside db.transaction()`);
    }
    return this.statements.query<T>(`${name}_${this.schema}`, text, params as unknown[]);
  }

  /**
   * Runs one statement in a transaction of its own and calls `atCommit()` in the same synchronous
   * step that writes the COMMIT to the server, before the server answers; resolves with the rows
   * changed once the commit is confirmed. For a record that another system must learn of together
   * with the database, when neither may know it without the other: email-api ends an SMTP message's
   * data in `atCommit`. A process killed after `atCommit` began has already sent its COMMIT (the
   * kernel delivers it), one killed before has not (the server rolls back). When the statement
   * fails, `atCommit` is not called and the transaction is rolled back; when the COMMIT fails after
   * `atCommit` ran, the rejection says so (`commitSent`). Refused inside `transaction(…)`, which it
   * could not join.
   */
  async commitWith(sql: string, params: readonly unknown[], atCommit: () => void): Promise<number> {
    if (this.inTransaction) throw new Error('Database.commitWith inside a transaction: it commits by itself; call it outside db.transaction()');
    const client = await ((this.dataSource.driver as PostgresDriver).master as Pool).connect();
    let healthy = false;
    try {
      await client.query('BEGIN');
      let changed: number;
      try {
        changed = (await client.query(sql, params as unknown[])).rowCount ?? 0;
      } catch (err) {
        await client.query('ROLLBACK').then(() => (healthy = true), () => undefined);
        throw err;
      }
      // The client is idle, so query() writes the COMMIT to the socket before it returns.
      const committed = client.query('COMMIT').then(
        () => null,
        (err: Error) => Object.assign(err, { commitSent: true }),
      );
      let thrown: { error: unknown } | null = null;
      try {
        atCommit();
      } catch (error) {
        thrown = { error };
      }
      const failed = await committed;
      if (failed) throw failed;
      healthy = true;
      if (thrown) throw thrown.error;
      return changed;
    } finally {
      client.release(!healthy);
    }
  }

  /**
   * Runs `fn` in a transaction: committed when it resolves, rolled back when it throws. Every query
   * through this Database inside `fn` (and in whatever `fn` awaits) belongs to it. Inside an open
   * transaction it joins that one.
   */
  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.host.withTransaction(Propagation.Required, fn);
  }

  /** Runs `fn` in a transaction of its own, even inside an open one (committed independently). */
  newTransaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.host.withTransaction(Propagation.RequiresNew, fn);
  }

  /**
   * Serialises the open transaction with every other one locking the same `key` (a transaction-level
   * advisory lock, released at commit or rollback): for invariants no row lock covers, such as "at
   * most N rows" or "one account created by replicas starting together". Refused outside a
   * transaction, where it would be released at once.
   */
  async lock(key: string): Promise<void> {
    if (!this.inTransaction) throw new Error(`Database.lock(${key}) outside a transaction: it would be released at once; call it inside db.transaction()`);
    await this.manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${this.schema}:${key}`]);
  }

  /**
   * {@link lock} of several keys in one statement, taken in the order of their lock ids, so that two
   * transactions locking overlapping sets wait for one another instead of deadlocking (a key is the
   * same lock as `lock(key)`). Refused outside a transaction.
   */
  async lockAll(keys: readonly string[]): Promise<void> {
    if (!this.inTransaction) throw new Error(`Database.lockAll(${keys.length} keys) outside a transaction: they would be released at once; call it inside db.transaction()`);
    if (keys.length === 0) return;
    await this.manager.query(
      'SELECT pg_advisory_xact_lock(k) FROM (SELECT DISTINCT hashtext($1 || key) AS k FROM unnest($2::text[]) AS key ORDER BY 1) AS keys',
      [`${this.schema}:`, keys],
    );
  }

  /** claimDue (FOR UPDATE SKIP LOCKED with a lease) on this service's database, in a transaction of its own. */
  claimDue<T = Record<string, unknown>>(opts: ClaimDueOptions): Promise<T[]> {
    return claimDue<T>(this.dataSource, opts);
  }
}
