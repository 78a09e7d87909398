import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import { IsNull, type Repository } from 'typeorm';
import { RefreshToken } from './entities/refresh-token.entity';

/** What revoking a session changed: its owner and the revocation time. */
export interface RevokedFamily {
  userId: string;
  revokedAt: Date;
}

@Injectable()
export class RefreshTokensRepository {
  constructor(private readonly db: Database) {}

  /** The table's repository, in the open transaction if there is one. */
  private get tokens(): Repository<RefreshToken> {
    return this.db.repository(RefreshToken);
  }

  async insert(token: { familyId: string; userId: string; tokenHash: string; expiresAt: Date }): Promise<void> {
    await this.tokens.insert(token);
  }

  findByHash(tokenHash: string): Promise<RefreshToken | null> {
    return this.tokens.findOne({ where: { tokenHash } });
  }

  /**
   * Uses the token up, atomically: only one of several concurrent refreshes with the same token
   * wins; the others see false and are treated as reuse.
   */
  async markUsed(id: string): Promise<boolean> {
    const result = await this.tokens.update({ id, usedAt: IsNull(), revokedAt: IsNull() }, { usedAt: () => 'now()' });
    return (result.affected ?? 0) === 1;
  }

  /**
   * Revokes every token of the family not revoked yet.
   * Returns the owner and time when this call revoked something, null when the family was unknown
   * or already revoked (a concurrent revocation waits for the first one's row locks, then sees null).
   */
  async revokeFamily(familyId: string): Promise<RevokedFamily | null> {
    const result = await this.tokens
      .createQueryBuilder()
      .update()
      .set({ revokedAt: () => 'now()' })
      .where('family_id = :familyId AND revoked_at IS NULL', { familyId })
      .returning('user_id, revoked_at')
      .execute();
    const row = (result.raw as Array<{ user_id: string; revoked_at: Date }>)[0];
    return row ? { userId: row.user_id, revokedAt: new Date(row.revoked_at) } : null;
  }

  /** True when the family exists and none of its tokens has been revoked. */
  async isFamilyActive(familyId: string): Promise<boolean> {
    return this.tokens.exists({ where: { familyId, revokedAt: IsNull() } });
  }

  async revokeAllOfUser(userId: string): Promise<void> {
    await this.tokens.update({ userId, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
  }
}
