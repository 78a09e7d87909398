import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { Outbox } from '@platform/messaging';
import { RefreshTokensRepository, type StoredRefreshToken } from './refresh-tokens.repository';
import { ConversationAccessEnded, type ConversationAccessEndedData, type SocketsEndedReason } from './session-events';

export type { StoredRefreshToken } from './refresh-tokens.repository';

/**
 * Sessions are refresh-token families: auth opens and rotates them, user management and password
 * resets end them. Access tokens name their family (`sid`), so a revoked family ends them too.
 * Every revocation also raises `conversation.access_ended` (outbox, same transaction), on which the
 * realtime feature disconnects the sockets opened with those sessions.
 */
@Injectable()
export class SessionsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly tokens: RefreshTokensRepository,
    private readonly outbox: Outbox,
  ) {}

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

  /** Ends one session (and its sockets); the number of tokens revoked. */
  revoke(familyId: string, reason: SocketsEndedReason): Promise<number> {
    return this.transactions.transaction(async () => {
      const revoked = await this.tokens.revokeFamily(familyId);
      await this.endSockets({ scope: 'session', id: familyId, reason });
      return revoked;
    });
  }

  /** Ends every session of the user (and its sockets). */
  revokeAllOfUser(userId: string, reason: SocketsEndedReason): Promise<number> {
    return this.transactions.transaction(async () => {
      const revoked = await this.tokens.revokeAllOfUser(userId);
      await this.endSockets({ scope: 'user', id: userId, reason });
      return revoked;
    });
  }

  /**
   * Sockets authenticated before a change of access (a role change) must authenticate again: raised
   * in the caller's transaction, so only a committed change disconnects anyone.
   */
  async endSockets(data: ConversationAccessEndedData): Promise<void> {
    await this.outbox.enqueue(ConversationAccessEnded, data);
  }

  /** True while some token of the family is unrevoked (the session of an access token is alive). */
  isActive(familyId: string): Promise<boolean> {
    return this.tokens.isFamilyActive(familyId);
  }
}
