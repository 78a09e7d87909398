import { Injectable } from '@nestjs/common';
import { RefreshTokensRepository, type StoredRefreshToken } from './refresh-tokens.repository';

export type { StoredRefreshToken } from './refresh-tokens.repository';

/**
 * Sessions are refresh-token families: auth opens and rotates them, user management and password
 * resets end them. Access tokens name their family (`sid`), so a revoked family ends them too.
 */
@Injectable()
export class SessionsService {
  constructor(private readonly tokens: RefreshTokensRepository) {}

  /** Stores a refresh token (its SHA-256) of the family. */
  addToken(t: { familyId: string; userId: string; tokenHash: string; expiresAt: Date }): Promise<void> {
    return this.tokens.insert(t);
  }

  findToken(hash: string): Promise<StoredRefreshToken | null> {
    return this.tokens.findByHash(hash);
  }

  /** Uses the token up; only one of several concurrent refreshes wins (the others see false: reuse). */
  useToken(id: string): Promise<boolean> {
    return this.tokens.markUsed(id);
  }

  /** Ends one session; the number of tokens revoked. */
  revoke(familyId: string): Promise<number> {
    return this.tokens.revokeFamily(familyId);
  }

  /** Ends every session of the user. */
  revokeAllOfUser(userId: string): Promise<number> {
    return this.tokens.revokeAllOfUser(userId);
  }

  /** True while some token of the family is unrevoked (the session of an access token is alive). */
  isActive(familyId: string): Promise<boolean> {
    return this.tokens.isFamilyActive(familyId);
  }
}
