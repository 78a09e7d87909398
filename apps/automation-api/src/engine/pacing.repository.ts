import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';

/**
 * The per-account send slot of private replies (`send_pacing`), shared by every replica: the earliest
 * time the account's next private reply may go out.
 */
@Injectable()
export class PacingRepository {
  constructor(private readonly db: Database) {}

  private get table(): string {
    return this.db.table('send_pacing');
  }

  /**
   * Takes the slot when it is free at `now` (one atomic statement: of concurrent takers exactly one
   * wins) and moves it `gapMs` on. Answers null when taken, else the time the slot is free.
   */
  async take(accountId: number, now: Date, gapMs: number): Promise<Date | null> {
    const won = await this.db.one<{ next_at: Date }>(
      `INSERT INTO ${this.table} (account_id, next_at) VALUES ($1, $2::timestamptz + make_interval(secs => $3::double precision / 1000))
       ON CONFLICT (account_id) DO UPDATE SET next_at = EXCLUDED.next_at WHERE ${this.table}.next_at <= $2::timestamptz
       RETURNING next_at`,
      [accountId, now, gapMs],
    );
    if (won) return null;
    const row = await this.db.one<{ next_at: Date }>(`SELECT next_at FROM ${this.table} WHERE account_id = $1`, [accountId]);
    return row ? new Date(row.next_at) : null;
  }

  /** When the account's next private reply may go out (null: no reply paced yet). */
  async nextAt(accountId: number): Promise<Date | null> {
    const row = await this.db.one<{ next_at: Date }>(`SELECT next_at FROM ${this.table} WHERE account_id = $1`, [accountId]);
    return row ? new Date(row.next_at) : null;
  }
}
