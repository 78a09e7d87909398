import type { DataSource } from 'typeorm';
import { rowsOf } from './rows';
import { withTransaction } from './transaction';

export interface ClaimLease {
  /** A nullable timestamptz column holding "claimed until"; rows whose lease is in the future are skipped. */
  column: string;
  /** How long a claim lasts before another worker may take the row again (the worker crashed). */
  seconds: number;
}

export interface ClaimDueOptions {
  /** Schema-qualified table, e.g. `${schema}.scheduled_jobs`. */
  table: string;
  /** SQL condition selecting due rows, with `$1…` placeholders for `params`. */
  where: string;
  params?: unknown[];
  /** SQL ORDER BY expression, e.g. `run_at ASC`. */
  orderBy: string;
  /** At most this many rows per claim (1…1000). */
  limit: number;
  /** Primary-key column, default `id`. */
  key?: string;
  /** Marks claimed rows so that other workers skip them after this transaction commits. */
  lease?: ClaimLease;
  /** Extra assignments applied to the claimed rows, e.g. `status = 'running', attempts = attempts + 1`. */
  set?: string;
  /**
   * The columns to answer (the key is always among them); default every column (`RETURNING *`). Named
   * columns let a claim that runs all the time be planned once per connection (a `*` result is not:
   * see HotStatements).
   */
  returning?: string[];
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$/i;

function checkIdentifier(value: string, what: string): string {
  if (!IDENTIFIER.test(value)) throw new Error(`claimDue: ${what} must be a plain (optionally schema-qualified) identifier, got ${JSON.stringify(value)}`);
  return value;
}

/**
 * Claims due rows for scheduled work, safely with several replicas: in one transaction it selects up to
 * `limit` rows matching `where` with `FOR UPDATE SKIP LOCKED` (rows another worker is claiming are
 * skipped, never waited for) and marks them with `lease` and/or `set`, so that a row is handed to one
 * worker only. Returns the claimed rows (raw column names) in `orderBy` order.
 *
 * The marking is what keeps a claimed row away from other workers once the transaction commits, so
 * `lease` or `set` is required. With a lease, rows whose lease is still running are not due; a worker
 * that finishes a row clears the lease or changes the row's state.
 */
export async function claimDue<T = Record<string, unknown>>(ds: DataSource, opts: ClaimDueOptions): Promise<T[]> {
  const table = checkIdentifier(opts.table, 'table');
  const key = checkIdentifier(opts.key ?? 'id', 'key');
  if (!Number.isInteger(opts.limit) || opts.limit < 1 || opts.limit > 1000) {
    throw new Error(`claimDue: limit must be an integer from 1 to 1000, got ${opts.limit}`);
  }
  if (!opts.lease && !opts.set) {
    throw new Error('claimDue: give `lease` or `set`, otherwise claimed rows are free again as soon as the claim commits');
  }
  const params = [...(opts.params ?? [])];
  const conditions = [`(${opts.where})`];
  const assignments: string[] = [];
  if (opts.lease) {
    const column = checkIdentifier(opts.lease.column, 'lease.column');
    if (!(opts.lease.seconds > 0)) throw new Error(`claimDue: lease.seconds must be positive, got ${opts.lease.seconds}`);
    conditions.push(`(${column} IS NULL OR ${column} <= now())`);
    assignments.push(`${column} = now() + make_interval(secs => $2::double precision)`);
  }
  if (opts.set) assignments.push(opts.set);
  const keyColumn = key.includes('.') ? key.slice(key.lastIndexOf('.') + 1) : key;
  const returning = opts.returning
    ? [...new Set([keyColumn, ...opts.returning.map((column) => checkIdentifier(column, 'returning'))])].join(', ')
    : '*';

  return withTransaction(ds, async (manager) => {
    const due: Array<{ claim_key: unknown }> = await manager.query(
      `SELECT ${key} AS claim_key FROM ${table} WHERE ${conditions.join(' AND ')} ORDER BY ${opts.orderBy} LIMIT ${opts.limit} FOR UPDATE SKIP LOCKED`,
      params,
    );
    if (due.length === 0) return [];
    const keys = due.map((row) => row.claim_key);
    const updateParams: unknown[] = [keys];
    if (opts.lease) updateParams.push(opts.lease.seconds);
    const raw = await manager.query(
      `UPDATE ${table} SET ${assignments.join(', ')} WHERE ${key} = ANY($1) RETURNING ${returning}`,
      updateParams,
    );
    const rows = rowsOf<Record<string, unknown>>(raw);
    const order = new Map(keys.map((k, i) => [String(k), i]));
    return rows.sort((a, b) => order.get(String(a[keyColumn]))! - order.get(String(b[keyColumn]))!) as T[];
  });
}
