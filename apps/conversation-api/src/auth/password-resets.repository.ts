import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';

@Injectable()
export class PasswordResetsRepository {
  constructor(private readonly db: Database) {}

  private get t(): string {
    return this.db.table('password_resets');
  }

  async insert(userId: string, tokenHash: string, expiresAt: Date): Promise<void> {
    await this.db.affected(`INSERT INTO ${this.t} (user_id, token_hash, expires_at) VALUES ($1, $2, $3)`, [userId, tokenHash, expiresAt]);
  }

  /** Uses the token up (single use, unexpired); returns its user, or null. Atomic: two confirmations cannot both win. */
  async consume(tokenHash: string): Promise<string | null> {
    const row = await this.db.one<{ user_id: string }>(
      `UPDATE ${this.t} SET used_at = now() WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING user_id`,
      [tokenHash],
    );
    return row?.user_id ?? null;
  }

  /** Earlier unused tokens of the user stop working once a new one is issued or one is used. */
  async invalidateOthers(userId: string): Promise<void> {
    await this.db.affected(`UPDATE ${this.t} SET used_at = now() WHERE user_id = $1 AND used_at IS NULL`, [userId]);
  }
}
