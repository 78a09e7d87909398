import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';

export interface UnreadableDelivery {
  /** One of the delivery's accounts, when it names a known one. */
  accountId: number | null;
  /** The same delivery again (the platform retries what was refused) is kept once. */
  dedupKey: string;
  body: unknown;
  reason: string;
}

/**
 * Signed deliveries the receiver could not read, kept in the work queue (`inbound_events`) the way a
 * work item that failed for good is: kind `unreadable`, the body as its payload, the reason in
 * `error`, `processed_at` set so that no worker claims it. Cleaned up with the processed items.
 */
@Injectable()
export class UnreadableDeliveriesRepository {
  constructor(private readonly db: Database) {}

  async keep(delivery: UnreadableDelivery): Promise<void> {
    await this.db.rows(
      `INSERT INTO ${this.db.table('inbound_events')} (account_id, dedup_key, kind, subject, payload, processed_at, error)
       VALUES ($1, $2, 'unreadable', '', $3::jsonb, now(), $4) ON CONFLICT (dedup_key) DO NOTHING`,
      [delivery.accountId, delivery.dedupKey, JSON.stringify(delivery.body), delivery.reason],
    );
  }
}
