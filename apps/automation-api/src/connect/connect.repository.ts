import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';

/** A connect link and the OAuth attempt started from it (only digests of its secrets are stored). */
export interface ConnectionRow {
  id: number;
  account_id: number;
  link_expires_at: Date;
  state_expires_at: Date | null;
  nonce_sha256: string | null;
  completed_at: Date | null;
  ig_user_id: string | null;
  error: string | null;
}

const COLUMNS = 'id, account_id, link_expires_at, state_expires_at, nonce_sha256, completed_at, ig_user_id, error';

/** `account_connections`: connect links and their OAuth states. */
@Injectable()
export class ConnectRepository {
  constructor(private readonly db: Database) {}

  private get table(): string {
    return this.db.table('account_connections');
  }

  async createLink(accountId: number, linkSha256: string, expiresAt: Date): Promise<void> {
    await this.db.rows(`INSERT INTO ${this.table} (account_id, link_sha256, link_expires_at) VALUES ($1, $2, $3)`, [accountId, linkSha256, expiresAt]);
  }

  byLink(linkSha256: string): Promise<ConnectionRow | null> {
    return this.db.one<ConnectionRow>(`SELECT ${COLUMNS} FROM ${this.table} WHERE link_sha256 = $1`, [linkSha256]);
  }

  byState(stateSha256: string): Promise<ConnectionRow | null> {
    return this.db.one<ConnectionRow>(`SELECT ${COLUMNS} FROM ${this.table} WHERE state_sha256 = $1`, [stateSha256]);
  }

  /** A new OAuth attempt on an open link (replaces an earlier one's state). False: the link is used or expired. */
  async start(id: number, stateSha256: string, nonceSha256: string, stateExpiresAt: Date, now: Date): Promise<boolean> {
    return (
      (await this.db.affected(
        `UPDATE ${this.table} SET state_sha256 = $2, nonce_sha256 = $3, state_expires_at = $4, error = NULL
         WHERE id = $1 AND completed_at IS NULL AND link_expires_at > $5`,
        [id, stateSha256, nonceSha256, stateExpiresAt, now],
      )) > 0
    );
  }

  /** Takes the attempt for its callback, once: the state cannot be used again. False: taken already. */
  async take(id: number, now: Date): Promise<boolean> {
    return (await this.db.affected(`UPDATE ${this.table} SET completed_at = $2, state_sha256 = NULL WHERE id = $1 AND completed_at IS NULL`, [id, now])) > 0;
  }

  /** The attempt failed after it was taken: the link stays usable for a new attempt, the error is kept. */
  async reopen(id: number, error: string): Promise<void> {
    await this.db.affected(`UPDATE ${this.table} SET completed_at = NULL, state_sha256 = NULL, nonce_sha256 = NULL, error = $2 WHERE id = $1`, [id, error.slice(0, 2000)]);
  }

  /** The state is spent without connecting (the person cancelled the login); the link stays usable. */
  async spend(id: number, error: string): Promise<void> {
    await this.db.affected(`UPDATE ${this.table} SET state_sha256 = NULL, nonce_sha256 = NULL, error = $2 WHERE id = $1`, [id, error.slice(0, 2000)]);
  }

  async recordConnected(id: number, igUserId: string): Promise<void> {
    await this.db.affected(`UPDATE ${this.table} SET ig_user_id = $2, error = NULL WHERE id = $1`, [id, igUserId]);
  }
}
