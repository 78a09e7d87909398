import type { DataSource } from 'typeorm';
import type { Clock, RateBudget, Release } from './call-budget';

export type BudgetKind = 'calls' | 'private_replies';

/** Longest sleep between two looks at a used-up budget (another replica may give a slot back). */
const MAX_POLL_MS = 5_000;

/**
 * An hourly budget shared by every replica: a counter row per (account, kind, window) in
 * `rate_budgets`, windows aligned to the hour (`windowMs`). A slot is taken with one atomic statement,
 *
 *   INSERT … VALUES (…, 1) ON CONFLICT (account_id, kind, window_start)
 *   DO UPDATE SET used = rate_budgets.used + 1 WHERE rate_budgets.used < $limit RETURNING used
 *
 * (the row lock of the upsert serialises concurrent takers, so N replicas together never exceed
 * `limit` in a window); no row returned means used up until the window ends. Giving a slot back
 * decrements the counter of the window the slot came from.
 *
 * The windows are fixed (clock hours), not sliding: up to `limit` calls may fall on each side of an
 * hour boundary. Time is this process' clock; replicas are expected to run NTP-synchronised clocks.
 */
export class PgRateBudget implements RateBudget {
  /** Window end (epoch ms) until which this process saw the budget used up. */
  private exhaustedUntil = 0;
  private disposed = false;
  private readonly sleepers = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();

  constructor(
    private readonly ds: DataSource,
    private readonly schema: string,
    readonly accountId: number,
    readonly kind: BudgetKind,
    readonly limit: number,
    readonly windowMs = 3_600_000,
    private readonly now: Clock = Date.now,
  ) {}

  private windowStart(at = this.now()): number {
    return Math.floor(at / this.windowMs) * this.windowMs;
  }

  waitMs(): number {
    return Math.max(0, this.exhaustedUntil - this.now());
  }

  async checkWaitMs(): Promise<number> {
    const start = this.windowStart();
    const [row] = await this.ds.query(`SELECT used FROM ${this.schema}.rate_budgets WHERE account_id = $1 AND kind = $2 AND window_start = $3`, [
      this.accountId,
      this.kind,
      new Date(start),
    ]);
    if (row && Number(row.used) >= this.limit) {
      this.exhaustedUntil = start + this.windowMs;
      return Math.max(1, this.exhaustedUntil - this.now());
    }
    this.exhaustedUntil = 0;
    return 0;
  }

  async take(): Promise<Release | null> {
    if (this.disposed) throw new Error('rate budget disposed (shutting down)');
    const start = this.windowStart();
    const windowStart = new Date(start);
    const rows: Array<{ used: number }> = await this.ds.query(
      `INSERT INTO ${this.schema}.rate_budgets (account_id, kind, window_start, used) VALUES ($1, $2, $3, 1)
       ON CONFLICT (account_id, kind, window_start) DO UPDATE SET used = rate_budgets.used + 1 WHERE rate_budgets.used < $4
       RETURNING used`,
      [this.accountId, this.kind, windowStart, this.limit],
    );
    if (rows.length === 0 || this.limit <= 0) {
      this.exhaustedUntil = start + this.windowMs;
      return null;
    }
    this.exhaustedUntil = 0;
    if (Number(rows[0].used) === 1) void this.prune(start);
    let released = false;
    return () => {
      if (released) return Promise.resolve();
      released = true;
      this.exhaustedUntil = 0;
      return this.ds
        .query(`UPDATE ${this.schema}.rate_budgets SET used = used - 1 WHERE account_id = $1 AND kind = $2 AND window_start = $3 AND used > 0`, [
          this.accountId,
          this.kind,
          windowStart,
        ])
        .then(() => undefined, () => undefined);
    };
  }

  async acquire(): Promise<Release> {
    for (;;) {
      const release = await this.take();
      if (release) return release;
      await this.sleep(Math.min(Math.max(1, this.waitMs()), MAX_POLL_MS));
    }
  }

  async count(): Promise<number> {
    const [row] = await this.ds.query(`SELECT used FROM ${this.schema}.rate_budgets WHERE account_id = $1 AND kind = $2 AND window_start = $3`, [
      this.accountId,
      this.kind,
      new Date(this.windowStart()),
    ]);
    return row ? Number(row.used) : 0;
  }

  dispose(): void {
    this.disposed = true;
    for (const s of this.sleepers) {
      clearTimeout(s.timer);
      s.resolve();
    }
    this.sleepers.clear();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          this.sleepers.delete(entry);
          resolve();
        }, ms),
        resolve,
      };
      entry.timer.unref?.();
      this.sleepers.add(entry);
    });
  }

  /** Drops this account's rows older than a day (once per new window). */
  private async prune(start: number): Promise<void> {
    await this.ds
      .query(`DELETE FROM ${this.schema}.rate_budgets WHERE account_id = $1 AND kind = $2 AND window_start < $3`, [this.accountId, this.kind, new Date(start - 86_400_000)])
      .catch(() => undefined);
  }
}
