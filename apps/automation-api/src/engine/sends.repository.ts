import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';

export interface SendRow {
  id: string;
  /** intent: recorded before the call; uncertain: the call died mid-flight (it may have arrived). */
  status: 'intent' | 'uncertain' | 'done' | 'failed';
  kind: 'public_reply' | 'private_reply' | 'dm';
  payload: Record<string, any>;
  platform_id: string | null;
  created_at: Date;
}

const COLUMNS = 'id, status, kind, payload, platform_id, created_at';

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
    return this.db.one<SendRow>(`SELECT ${COLUMNS} FROM ${this.table} WHERE run_id = $1 AND step_key = $2`, [runId, stepKey]);
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
      `UPDATE ${this.table} SET payload = $2::jsonb WHERE id = $1 AND status IN ('intent', 'uncertain') RETURNING ${COLUMNS}`,
      [id, JSON.stringify(payload)],
    );
    if (!row) throw new Error(`send ${id} is no longer an open intent`);
    return row;
  }

  async done(id: string, platformId: string | null, note: string | null = null): Promise<void> {
    await this.db.affected(`UPDATE ${this.table} SET status = 'done', platform_id = $2, error = $3, done_at = now() WHERE id = $1`, [id, platformId, note]);
  }

  /** The call died after the request was written: the send may have arrived (checked before any retry). */
  async uncertain(id: string, error: string): Promise<void> {
    await this.db.affected(`UPDATE ${this.table} SET status = 'uncertain', error = $2 WHERE id = $1 AND status IN ('intent', 'uncertain')`, [id, error.slice(0, 2000)]);
  }

  /** Platform message ids of the account's confirmed sends among `ids` (to tell its own messages from others). */
  async knownPlatformIds(accountId: number, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db.rows<{ platform_id: string }>(`SELECT platform_id FROM ${this.table} WHERE account_id = $1 AND platform_id = ANY($2::text[])`, [accountId, ids]);
    return new Set(rows.map((r) => r.platform_id));
  }

  /** The person's unconfirmed direct messages and private replies (status intent or uncertain), oldest first. */
  openForPerson(accountId: number, runIds: string[]): Promise<Array<SendRow & { run_id: string }>> {
    if (runIds.length === 0) return Promise.resolve([]);
    return this.db.rows<SendRow & { run_id: string }>(
      `SELECT ${COLUMNS}, run_id::text AS run_id FROM ${this.table}
        WHERE account_id = $1 AND run_id = ANY($2::bigint[]) AND status IN ('intent', 'uncertain') AND kind <> 'public_reply' ORDER BY id`,
      [accountId, runIds],
    );
  }

  async failed(id: string, error: string): Promise<void> {
    await this.db.affected(`UPDATE ${this.table} SET status = 'failed', error = $2, done_at = now() WHERE id = $1`, [id, error.slice(0, 2000)]);
  }
}
