import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';

export interface Usage {
  runs: number;
  messages: number;
  automations: number;
}

/** Usage counters of an account for a period, read from the run and send rows. */
@Injectable()
export class BillingRepository {
  constructor(private readonly db: Database) {}

  async usage(accountId: number, from: Date, to: Date): Promise<Usage> {
    const row = await this.db.one<Usage>(
      `SELECT (SELECT count(*) FROM ${this.db.table('runs')} WHERE account_id = $1 AND created_at >= $2 AND created_at < $3
                 AND NOT (state = 'skipped' AND error IN ('once_per_user', 'plan_limit', 'opted_out', 'human_takeover')))::int AS runs,
              (SELECT count(*) FROM ${this.db.table('run_sends')} WHERE account_id = $1 AND status = 'done' AND done_at >= $2 AND done_at < $3)::int AS messages,
              (SELECT count(*) FROM ${this.db.table('automations')} WHERE account_id = $1)::int AS automations`,
      [accountId, from, to],
    );
    return row!;
  }

  /** Automations the account holds (inside a transaction: including the ones it created). */
  async automations(accountId: number): Promise<number> {
    const row = await this.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.db.table('automations')} WHERE account_id = $1`, [accountId]);
    return row?.n ?? 0;
  }
}
