import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { TokenPurpose, User } from './user';

interface UserRow {
  id: string;
  email: string;
  name: string | null;
  password_hash: string | null;
  email_verified_at: Date | null;
  session_version: number;
  created_at: Date;
}

function toUser(r: UserRow): User {
  return {
    id: r.id,
    email: r.email,
    name: r.name,
    passwordHash: r.password_hash,
    emailVerifiedAt: r.email_verified_at,
    sessionVersion: r.session_version,
    createdAt: r.created_at,
  };
}

@Injectable()
export class UsersRepository {
  constructor(private readonly db: Database) {}

  async findById(id: string): Promise<User | null> {
    const row = await this.db.one<UserRow>(`SELECT * FROM ${this.db.table('users')} WHERE id = $1`, [id]);
    return row ? toUser(row) : null;
  }

  async findByEmail(email: string): Promise<User | null> {
    const row = await this.db.one<UserRow>(`SELECT * FROM ${this.db.table('users')} WHERE email = $1`, [email.trim().toLowerCase()]);
    return row ? toUser(row) : null;
  }

  /** Inserts the user, or returns null when the email is taken. `verified`: the address is already proven (an OAuth provider said so). */
  async insert(email: string, name: string | null, passwordHash: string | null, verified = false): Promise<User | null> {
    const row = await this.db.one<UserRow>(
      `INSERT INTO ${this.db.table('users')} (email, name, password_hash, email_verified_at)
       VALUES ($1, $2, $3, CASE WHEN $4::boolean THEN now() END) ON CONFLICT (email) DO NOTHING RETURNING *`,
      [email.trim().toLowerCase(), name, passwordHash, verified],
    );
    return row ? toUser(row) : null;
  }

  async markVerified(id: string): Promise<void> {
    await this.db.affected(`UPDATE ${this.db.table('users')} SET email_verified_at = coalesce(email_verified_at, now()), updated_at = now() WHERE id = $1`, [id]);
  }

  /** New password; bumps the session version so that every existing session stops working. */
  async setPassword(id: string, passwordHash: string): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.db.table('users')} SET password_hash = $2, session_version = session_version + 1, updated_at = now() WHERE id = $1`,
      [id, passwordHash],
    );
  }

  async insertToken(userId: string, purpose: TokenPurpose, tokenHash: string, ttlSeconds: number): Promise<void> {
    await this.db.rows(
      `INSERT INTO ${this.db.table('user_tokens')} (user_id, purpose, token_hash, expires_at) VALUES ($1, $2, $3, now() + make_interval(secs => $4))`,
      [userId, purpose, tokenHash, ttlSeconds],
    );
  }

  /**
   * Marks the token used and returns its user id, atomically: only an unused, unexpired token of
   * that purpose matches, so a token works once.
   */
  async consumeToken(purpose: TokenPurpose, tokenHash: string): Promise<string | null> {
    const row = await this.db.one<{ user_id: string }>(
      `UPDATE ${this.db.table('user_tokens')} SET used_at = now()
        WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > now()
        RETURNING user_id`,
      [tokenHash, purpose],
    );
    return row?.user_id ?? null;
  }

  /** Earlier unused tokens of the purpose stop working when a new one is issued or one is used. */
  async revokeTokens(userId: string, purpose: TokenPurpose): Promise<void> {
    await this.db.affected(`UPDATE ${this.db.table('user_tokens')} SET used_at = now() WHERE user_id = $1 AND purpose = $2 AND used_at IS NULL`, [userId, purpose]);
  }
}
