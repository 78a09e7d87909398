import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';

export interface SubscriptionCheckRow {
  account_id: number;
  checked_at: Date | null;
  subscribed_fields: string[];
  problem: string | null;
  resubscribed_at: Date | null;
  resubscriptions: number;
}

/** `subscription_checks`: the periodic webhook subscription check's lease and findings per account. */
@Injectable()
export class SubscriptionChecksRepository {
  constructor(private readonly db: Database) {}

  private get table(): string {
    return this.db.table('subscription_checks');
  }

  /** Accounts seen for the first time are checked one interval later (connecting subscribes them at once). */
  async ensure(accountIds: number[], firstCheckInSeconds: number): Promise<void> {
    if (accountIds.length === 0) return;
    await this.db.rows(
      `INSERT INTO ${this.table} (account_id, lease_until) SELECT unnest($1::int[]), now() + make_interval(secs => $2::double precision)
       ON CONFLICT (account_id) DO NOTHING`,
      [accountIds, firstCheckInSeconds],
    );
  }

  claim(accountIds: number[], leaseSeconds: number, limit: number): Promise<SubscriptionCheckRow[]> {
    if (accountIds.length === 0) return Promise.resolve([]);
    return this.db.claimDue<SubscriptionCheckRow>({
      table: this.table,
      key: 'account_id',
      where: 'account_id = ANY($1::int[])',
      params: [accountIds],
      orderBy: 'checked_at ASC NULLS FIRST',
      limit,
      lease: { column: 'lease_until', seconds: leaseSeconds },
    });
  }

  async record(accountId: number, at: Date, fields: string[], problem: string | null, resubscribed: boolean): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.table} SET checked_at = $2, subscribed_fields = $3::text[], problem = $4,
         resubscribed_at = CASE WHEN $5::boolean THEN $2 ELSE resubscribed_at END,
         resubscriptions = resubscriptions + CASE WHEN $5::boolean THEN 1 ELSE 0 END
       WHERE account_id = $1`,
      [accountId, at, fields, problem, resubscribed],
    );
  }

  find(accountId: number): Promise<SubscriptionCheckRow | null> {
    return this.db.one<SubscriptionCheckRow>(
      `SELECT account_id, checked_at, subscribed_fields, problem, resubscribed_at, resubscriptions FROM ${this.table} WHERE account_id = $1`,
      [accountId],
    );
  }
}
