import { Injectable } from '@nestjs/common';
import { CommentPollerRepository } from './comment-poller.repository';

/** What GET /status shows of the comment poller for an account. */
export interface CommentPollerStatus {
  since: string;
  last_pass_at: string | null;
  requests_last_pass: number;
  recovered_last_pass: number;
  answered_skipped_last_pass: number;
  recovered_total: number;
  problem: string | null;
}

@Injectable()
export class CommentPollerService {
  constructor(private readonly repo: CommentPollerRepository) {}

  /** Null until the poller saw the account (it is not connected, or the first pass did not run yet). */
  async status(accountId: number): Promise<CommentPollerStatus | null> {
    const row = await this.repo.find(accountId);
    if (!row) return null;
    return {
      since: new Date(row.since).toISOString(),
      last_pass_at: row.last_pass_at ? new Date(row.last_pass_at).toISOString() : null,
      requests_last_pass: row.last_requests,
      recovered_last_pass: row.last_recovered,
      answered_skipped_last_pass: row.last_answered,
      recovered_total: Number(row.recovered_total),
      problem: row.last_error,
    };
  }
}
