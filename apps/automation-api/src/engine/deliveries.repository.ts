import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';

export interface DeliveryRow {
  id: string;
  account_id: number;
  automation_id: number | null;
  run_id: string | null;
  kind: string;
  url: string;
  payload: Record<string, unknown>;
  attempts: number;
}

export interface NewDelivery {
  account_id: number;
  automation_id: number;
  run_id: string;
  kind: string;
  url: string;
  payload: object;
}

/** The customer-webhook outbox (`webhook_deliveries`): storing, claiming due rows and recording attempts. */
@Injectable()
export class DeliveriesRepository {
  constructor(private readonly db: Database) {}

  private get table(): string {
    return this.db.table('webhook_deliveries');
  }

  /** Stores a delivery (inside the transaction of the run's transition that announces it). */
  async insert(d: NewDelivery): Promise<void> {
    await this.db.rows(`INSERT INTO ${this.table} (account_id, automation_id, run_id, kind, url, payload) VALUES ($1, $2, $3, $4, $5, $6::jsonb)`, [
      d.account_id,
      d.automation_id,
      d.run_id,
      d.kind,
      d.url,
      JSON.stringify(d.payload),
    ]);
  }

  /** Pending deliveries due now, leased for 60 s to this replica (FOR UPDATE SKIP LOCKED). */
  claimDue(limit: number): Promise<DeliveryRow[]> {
    return this.db.claimDue<DeliveryRow>({
      table: this.table,
      where: `status = 'pending' AND next_attempt_at <= now()`,
      orderBy: 'next_attempt_at ASC',
      limit,
      lease: { column: 'lease_until', seconds: 60 },
    });
  }

  async markDelivered(id: string, attempts: number, status: number | null): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.table} SET status = 'delivered', attempts = $2, last_status = $3, last_error = NULL, delivered_at = now(), lease_until = NULL WHERE id = $1`,
      [id, attempts, status],
    );
  }

  /** Records a failed attempt: retried after `retryInMs`, or `failed` for good when `final`. */
  async markAttemptFailed(id: string, attempt: { attempts: number; status: number | null; error: string; final: boolean; retryInMs: number }): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.table} SET status = $2, attempts = $3, last_status = $4, last_error = $5,
         next_attempt_at = now() + make_interval(secs => $6::double precision), lease_until = NULL WHERE id = $1`,
      [id, attempt.final ? 'failed' : 'pending', attempt.attempts, attempt.status, attempt.error.slice(0, 1000), attempt.retryInMs / 1000],
    );
  }
}
