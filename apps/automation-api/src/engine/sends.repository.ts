import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';

export interface SendRow {
  id: string;
  status: 'intent' | 'done' | 'failed';
  kind: 'public_reply' | 'private_reply' | 'dm';
  payload: Record<string, any>;
  platform_id: string | null;
}

/**
 * Send intents (`run_sends`): each outgoing message of a run is recorded before the platform call
 * and confirmed after, so that a crash never sends it twice blindly (SendMessage, engine/send-message.ts).
 */
@Injectable()
export class SendsRepository {
  constructor(private readonly db: Database) {}

  private get table(): string {
    return this.db.table('run_sends');
  }

  find(runId: string, stepKey: string): Promise<SendRow | null> {
    return this.db.one<SendRow>(`SELECT id, status, kind, payload, platform_id FROM ${this.table} WHERE run_id = $1 AND step_key = $2`, [runId, stepKey]);
  }

  async any(runId: string): Promise<boolean> {
    return (await this.db.one(`SELECT 1 FROM ${this.table} WHERE run_id = $1 LIMIT 1`, [runId])) !== null;
  }

  /** Records the intent (before calling the platform). Returns the stored row (an older one wins). */
  async recordIntent(accountId: number, runId: string, stepKey: string, kind: SendRow['kind'], payload: Record<string, unknown>): Promise<SendRow> {
    await this.db.rows(
      `INSERT INTO ${this.table} (account_id, run_id, step_key, kind, payload) VALUES ($1, $2, $3, $4, $5::jsonb) ON CONFLICT (run_id, step_key) DO NOTHING`,
      [accountId, runId, stepKey, kind, JSON.stringify(payload)],
    );
    return (await this.find(runId, stepKey))!;
  }

  /** Replaces the payload of an unconfirmed intent (the text fallback of a refused template). */
  async replacePayload(id: string, payload: Record<string, unknown>): Promise<SendRow> {
    const row = await this.db.one<SendRow>(
      `UPDATE ${this.table} SET payload = $2::jsonb WHERE id = $1 AND status = 'intent' RETURNING id, status, kind, payload, platform_id`,
      [id, JSON.stringify(payload)],
    );
    if (!row) throw new Error(`send ${id} is no longer an open intent`);
    return row;
  }

  async done(id: string, platformId: string | null, note: string | null = null): Promise<void> {
    await this.db.affected(`UPDATE ${this.table} SET status = 'done', platform_id = $2, error = $3, done_at = now() WHERE id = $1`, [id, platformId, note]);
  }

  async failed(id: string, error: string): Promise<void> {
    await this.db.affected(`UPDATE ${this.table} SET status = 'failed', error = $2, done_at = now() WHERE id = $1`, [id, error.slice(0, 2000)]);
  }
}
