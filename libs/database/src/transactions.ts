import { Database } from './database';

/**
 * The narrow transaction port for services and use cases (docs/lib-contracts.md, "Data access"):
 * they open, join and serialise transactions, and never see SQL, a DataSource or an EntityManager.
 * Only repositories inject `Database`. Every repository call made inside `transaction(fn)` (and in
 * whatever `fn` awaits) belongs to that transaction.
 *
 * `Database.commitWith` has no counterpart here: it runs one statement, so it belongs to the
 * repository that owns the statement, which exposes the record it writes (email-api's send worker
 * calls `EmailsRepository.recordSentWith`).
 */
export class Transactions {
  constructor(private readonly db: Database) {}

  /** Runs `fn` in a transaction (joining an open one): committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.db.transaction(fn);
  }

  /** Runs `fn` in a transaction of its own, even inside an open one (committed independently). */
  newTransaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.db.newTransaction(fn);
  }

  /** True inside `transaction(…)`. */
  get inTransaction(): boolean {
    return this.db.inTransaction;
  }

  /**
   * Serialises the open transaction with every other one locking the same `key` (advisory, released
   * at commit or rollback). Refused outside a transaction.
   */
  lock(key: string): Promise<void> {
    return this.db.lock(key);
  }

  /** `lock` of several keys at once, in an order that cannot deadlock with another transaction's set. */
  lockAll(keys: readonly string[]): Promise<void> {
    return this.db.lockAll(keys);
  }
}
