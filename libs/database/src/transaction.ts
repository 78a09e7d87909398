import type { DataSource, EntityManager } from 'typeorm';

/**
 * Runs `fn` in one transaction: committed when it resolves, rolled back when it throws (the error is
 * rethrown). Use the given manager for every query that belongs to the transaction.
 */
export async function withTransaction<T>(ds: DataSource, fn: (manager: EntityManager) => Promise<T>): Promise<T> {
  return ds.transaction((manager) => fn(manager));
}
