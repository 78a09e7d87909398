import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';

export type BudgetKind = 'calls' | 'private_replies';

/** One counter of `rate_budgets`: an account's budget of one kind in the window starting at `window`. */
export interface BudgetWindow {
  accountId: number;
  kind: BudgetKind;
  window: Date;
}

/**
 * The hourly budgets shared by every replica (`rate_budgets`: a counter row per account, kind and
 * window). A slot is taken with one atomic statement,
 *
 *   INSERT … VALUES (…, 1) ON CONFLICT (account_id, kind, window_start)
 *   DO UPDATE SET used = rate_budgets.used + 1 WHERE rate_budgets.used < $limit RETURNING used
 *
 * (the row lock of the upsert serialises concurrent takers, so N replicas together never exceed
 * `limit` in a window); no row returned means used up until the window ends.
 */
@Injectable()
export class RateBudgetsRepository {
  constructor(private readonly db: Database) {}

  private get table(): string {
    return this.db.table('rate_budgets');
  }

  /** Slots used in the window; null when its counter does not exist (nothing taken yet). */
  async used(w: BudgetWindow): Promise<number | null> {
    const row = await this.db.one<{ used: number }>(`SELECT used FROM ${this.table} WHERE account_id = $1 AND kind = $2 AND window_start = $3`, [w.accountId, w.kind, w.window]);
    return row ? Number(row.used) : null;
  }

  /** Takes a slot when fewer than `limit` are used: the slots used with this one, or null (used up). */
  async take(w: BudgetWindow, limit: number): Promise<number | null> {
    const row = await this.db.one<{ used: number }>(
      `INSERT INTO ${this.table} (account_id, kind, window_start, used) VALUES ($1, $2, $3, 1)
       ON CONFLICT (account_id, kind, window_start) DO UPDATE SET used = rate_budgets.used + 1 WHERE rate_budgets.used < $4
       RETURNING used`,
      [w.accountId, w.kind, w.window, limit],
    );
    return row ? Number(row.used) : null;
  }

  /** Gives a slot back to the window it came from. */
  async giveBack(w: BudgetWindow): Promise<void> {
    await this.db.affected(`UPDATE ${this.table} SET used = used - 1 WHERE account_id = $1 AND kind = $2 AND window_start = $3 AND used > 0`, [w.accountId, w.kind, w.window]);
  }

  /** Drops the account's counters of this kind from windows before `before`. */
  async prune(accountId: number, kind: BudgetKind, before: Date): Promise<void> {
    await this.db.affected(`DELETE FROM ${this.table} WHERE account_id = $1 AND kind = $2 AND window_start < $3`, [accountId, kind, before]);
  }
}
