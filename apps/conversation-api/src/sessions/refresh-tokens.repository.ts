import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';

export interface StoredRefreshToken {
  id: string;
  familyId: string;
  userId: string;
  expiresAt: Date;
  usedAt: Date | null;
  revokedAt: Date | null;
}

interface Row {
  id: string;
  family_id: string;
  user_id: string;
  expires_at: Date;
  used_at: Date | null;
  revoked_at: Date | null;
}

@Injectable()
export class RefreshTokensRepository {
  constructor(private readonly db: Database) {}

  private get t(): string {
    return this.db.table('refresh_tokens');
  }

  async insert(t: { familyId: string; userId: string; tokenHash: string; expiresAt: Date }): Promise<void> {
    await this.db.affected(`INSERT INTO ${this.t} (family_id, user_id, token_hash, expires_at) VALUES ($1, $2, $3, $4)`, [t.familyId, t.userId, t.tokenHash, t.expiresAt]);
  }

  async findByHash(hash: string): Promise<StoredRefreshToken | null> {
    const r = await this.db.one<Row>(`SELECT id, family_id, user_id, expires_at, used_at, revoked_at FROM ${this.t} WHERE token_hash = $1`, [hash]);
    return r ? { id: r.id, familyId: r.family_id, userId: r.user_id, expiresAt: r.expires_at, usedAt: r.used_at, revokedAt: r.revoked_at } : null;
  }

  /** Uses the token up; only one of several concurrent refreshes wins (the others see false: reuse). */
  async markUsed(id: string): Promise<boolean> {
    return (await this.db.affected(`UPDATE ${this.t} SET used_at = now() WHERE id = $1 AND used_at IS NULL AND revoked_at IS NULL`, [id])) === 1;
  }

  async revokeFamily(familyId: string): Promise<number> {
    return this.db.affected(`UPDATE ${this.t} SET revoked_at = now() WHERE family_id = $1 AND revoked_at IS NULL`, [familyId]);
  }

  async revokeAllOfUser(userId: string): Promise<number> {
    return this.db.affected(`UPDATE ${this.t} SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL`, [userId]);
  }

  /** True when some token of the family is still unrevoked (the session of an access token is alive). */
  async isFamilyActive(familyId: string): Promise<boolean> {
    const row = await this.db.one<{ ok: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${this.t} WHERE family_id = $1 AND revoked_at IS NULL) AS ok`, [familyId]);
    return row?.ok === true;
  }
}
