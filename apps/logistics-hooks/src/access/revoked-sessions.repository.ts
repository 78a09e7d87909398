import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';

@Injectable()
export class RevokedSessionsRepository {
  constructor(private readonly db: Database) {}

  /** Records a revoked session until `keepUntil` (idempotent) and forgets the ones whose tokens have all expired. */
  async add(sessionId: string, revokedAt: Date, keepUntil: Date): Promise<void> {
    const t = this.db.table('revoked_sessions');
    await this.db.affected(
      `INSERT INTO ${t} (session_id, revoked_at, keep_until) VALUES ($1, $2, $3) ON CONFLICT (session_id) DO NOTHING`,
      [sessionId, revokedAt, keepUntil],
    );
    await this.db.affected(`DELETE FROM ${t} WHERE keep_until < now()`);
  }

  async isRevoked(sessionId: string): Promise<boolean> {
    const rows = await this.db.prepared<{ one: number }>(
      'logistics_session_revoked',
      `SELECT 1 AS one FROM ${this.db.table('revoked_sessions')} WHERE session_id = $1`,
      [sessionId],
    );
    return rows.length > 0;
  }
}
