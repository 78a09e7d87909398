import { Injectable } from '@nestjs/common';
import { claimDue } from '@platform/database';
import { EngineRepository } from './engine.repository';

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

/** The customer-webhook outbox (`webhook_deliveries`): claiming due rows and recording attempts. */
@Injectable()
export class DeliveriesRepository {
  constructor(private readonly engine: EngineRepository) {}

  private get table(): string {
    return `${this.engine.s}.webhook_deliveries`;
  }

  /** Pending deliveries due now, leased for 60 s to this replica (FOR UPDATE SKIP LOCKED). */
  claimDue(limit: number): Promise<DeliveryRow[]> {
    return claimDue<DeliveryRow>(this.engine.ds, {
      table: this.table,
      where: `status = 'pending' AND next_attempt_at <= now()`,
      orderBy: 'next_attempt_at ASC',
      limit,
      lease: { column: 'lease_until', seconds: 60 },
    });
  }

  /** The automation's signing secret, read at delivery time (a changed secret applies to retries). */
  async webhookSecret(automationId: number): Promise<string | null> {
    const [row] = await this.engine.ds.query(`SELECT webhook_secret FROM ${this.engine.s}.automations WHERE id = $1`, [automationId]);
    return row?.webhook_secret ?? null;
  }

  async markDelivered(id: string, attempts: number, status: number | null): Promise<void> {
    await this.engine.ds.query(
      `UPDATE ${this.table} SET status = 'delivered', attempts = $2, last_status = $3, last_error = NULL, delivered_at = now(), lease_until = NULL WHERE id = $1`,
      [id, attempts, status],
    );
  }

  /** Records a failed attempt: retried after `retryInMs`, or `failed` for good when `final`. */
  async markAttemptFailed(id: string, attempt: { attempts: number; status: number | null; error: string; final: boolean; retryInMs: number }): Promise<void> {
    await this.engine.ds.query(
      `UPDATE ${this.table} SET status = $2, attempts = $3, last_status = $4, last_error = $5,
         next_attempt_at = now() + make_interval(secs => $6::double precision), lease_until = NULL WHERE id = $1`,
      [id, attempt.final ? 'failed' : 'pending', attempt.attempts, attempt.status, attempt.error.slice(0, 1000), attempt.retryInMs / 1000],
    );
  }
}
