import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { PollMemory } from './comment-scan';

export interface PollAccountRow {
  account_id: number;
  since: Date;
  memory: PollMemory;
  last_pass_at: Date | null;
  last_requests: number;
  last_recovered: number;
  last_answered: number;
  recovered_total: string;
  last_error: string | null;
}

export interface PassResult {
  memory: PollMemory;
  requests: number;
  recovered: number;
  answered: number;
  error: string | null;
}

/** `comment_poll_accounts`: the poller's watermark, lease and memory per account. */
@Injectable()
export class CommentPollerRepository {
  constructor(private readonly db: Database) {}

  private get table(): string {
    return this.db.table('comment_poll_accounts');
  }

  /**
   * Gives accounts seen for the first time their watermark (`since`) and their first pass one
   * interval later (`firstPassInSeconds`: nothing older than the watermark counts, so a pass at once
   * would find nothing); existing rows keep theirs.
   */
  async ensure(accountIds: number[], since: Date, firstPassInSeconds: number): Promise<void> {
    if (accountIds.length === 0) return;
    await this.db.rows(
      `INSERT INTO ${this.table} (account_id, since, lease_until) SELECT unnest($1::int[]), $2, now() + make_interval(secs => $3::double precision)
       ON CONFLICT (account_id) DO NOTHING`,
      [accountIds, since, firstPassInSeconds],
    );
  }

  /** Accounts due for a pass, leased so that one replica polls each per interval. */
  claim(accountIds: number[], leaseSeconds: number, limit: number): Promise<PollAccountRow[]> {
    if (accountIds.length === 0) return Promise.resolve([]);
    return this.db.claimDue<PollAccountRow>({
      table: this.table,
      key: 'account_id',
      where: `account_id = ANY($1::int[])`,
      params: [accountIds],
      orderBy: 'last_pass_at ASC NULLS FIRST',
      limit,
      lease: { column: 'lease_until', seconds: leaseSeconds },
    });
  }

  async recordPass(accountId: number, at: Date, result: PassResult): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.table} SET memory = $2::jsonb, last_pass_at = $3, last_requests = $4, last_recovered = $5::int, last_answered = $6,
         recovered_total = recovered_total + $5::int, last_error = $7 WHERE account_id = $1`,
      [accountId, JSON.stringify(result.memory), at, result.requests, result.recovered, result.answered, result.error],
    );
  }

  find(accountId: number): Promise<PollAccountRow | null> {
    return this.db.one<PollAccountRow>(`SELECT * FROM ${this.table} WHERE account_id = $1`, [accountId]);
  }
}
