import { Injectable } from '@nestjs/common';
import { verifyPassword } from '@platform/auth';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { AuthSessionRevoked, Outbox, type AuthSessionRevokedReason } from '@platform/messaging';
import { randomUUID } from 'node:crypto';
import { LOGISTICS_REFRESH_TTL_SECONDS } from '../config';
import { LoginRateLimiter } from '../rate-limit/login-rate-limiter';
import { TokenService } from '../tokens/token.service';
import type { LogisticsRole, LogisticsUser } from './entities/logistics-user.entity';
import { LogisticsUsersRepository } from './logistics-users.repository';
import { RefreshTokensRepository } from './refresh-tokens.repository';
import { assessRefreshToken, newRefreshToken, refreshTokenHash } from './refresh-rotation';

const WWW_AUTHENTICATE = { 'WWW-Authenticate': 'Bearer' };

export interface LogisticsTokens {
  access_token: string;
  refresh_token: string;
  token_type: 'bearer';
  expires_in: number;
}

/** The principal a logistics access token stands for (`req.user`). */
export interface LogisticsPrincipal {
  user: LogisticsUser;
  role: LogisticsRole;
  sessionId: string;
}

export function logisticsUnauthorized(message = 'Could not validate credentials'): ApiError {
  return new ApiError(401, 'UNAUTHORIZED', message, { headers: WWW_AUTHENTICATE });
}

@Injectable()
export class LogisticsAuthService {
  constructor(
    private readonly users: LogisticsUsersRepository,
    private readonly refreshTokens: RefreshTokensRepository,
    private readonly tokens: TokenService,
    private readonly transactions: Transactions,
    private readonly outbox: Outbox,
    private readonly limiter: LoginRateLimiter,
  ) {}

  /**
   * Checks the credentials (constant time for unknown emails) and starts a new session (refresh-token
   * family). Failures count against the login limits of the client `ip` (429 at the limit).
   */
  async login(email: string, password: string, ip: string): Promise<LogisticsTokens> {
    const user = await this.limiter.guard(ip, email, async () => {
      const found = await this.users.findByEmail(email);
      const ok = await verifyPassword(found?.passwordHash, password);
      return found && ok && found.isActive ? found : null;
    });
    if (!user) throw logisticsUnauthorized('Incorrect email or password');
    return this.issue(user, randomUUID());
  }

  /**
   * Rotates a refresh token: the presented one is used up and the next one of the same family is
   * returned. Presenting a used-up token again revokes the whole family (reuse detection).
   */
  async refresh(refreshToken: string, correlationId?: string): Promise<LogisticsTokens> {
    const stored = await this.refreshTokens.findByHash(refreshTokenHash(refreshToken));
    const verdict = assessRefreshToken(stored, new Date());
    if (verdict.kind === 'refuse' || !stored) throw logisticsUnauthorized('Invalid or expired refresh token; log in again');
    if (verdict.kind === 'reuse') return this.reuseDetected(stored.familyId, correlationId);
    const user = await this.users.findById(stored.userId);
    if (!user?.isActive) {
      await this.refreshTokens.revokeFamily(stored.familyId);
      throw logisticsUnauthorized('Invalid or expired refresh token; log in again');
    }
    // Only one of several concurrent refreshes with the same token can use it up.
    if (!(await this.refreshTokens.markUsed(stored.id))) return this.reuseDetected(stored.familyId, correlationId);
    return this.issue(user, stored.familyId);
  }

  /**
   * Ends a session: the family of the given refresh token, or else the session (`sid`) of the
   * given access token, is revoked. Unknown or already revoked refresh tokens are ignored (logout is
   * idempotent); an invalid access token without a refresh token is a 401. The first revocation of
   * a session stores `auth.session_revoked` (reason `logout`) in the same transaction.
   */
  async logout(refreshToken: string | undefined, accessToken: string | undefined, correlationId?: string): Promise<void> {
    if (refreshToken) {
      const stored = await this.refreshTokens.findByHash(refreshTokenHash(refreshToken));
      if (stored) await this.revokeSession(stored.familyId, 'logout', correlationId);
      return;
    }
    if (!accessToken) {
      throw new ApiError(401, 'UNAUTHORIZED', 'Send the refresh token in the body or the access token as a bearer header', {
        headers: WWW_AUTHENTICATE,
      });
    }
    const claims = await this.tokens.verifyLogistics(accessToken).catch(() => null);
    if (!claims) throw logisticsUnauthorized();
    await this.revokeSession(claims.sid, 'logout', correlationId);
  }

  /** The principal of a valid logistics access token whose user is active and whose session is not revoked; else null. */
  async authenticate(accessToken: string): Promise<LogisticsPrincipal | null> {
    const claims = await this.tokens.verifyLogistics(accessToken);
    const user = await this.users.findById(claims.sub);
    if (!user?.isActive) return null;
    if (!(await this.refreshTokens.isFamilyActive(claims.sid))) return null;
    return { user, role: user.role, sessionId: claims.sid };
  }

  /**
   * Revokes the session (refresh-token family) and, when this call revoked it (not an earlier one),
   * stores `auth.session_revoked` in the same transaction, so that services verifying access
   * tokens by signature learn to refuse the session's `sid` before its tokens expire.
   */
  private async revokeSession(familyId: string, reason: AuthSessionRevokedReason, correlationId?: string): Promise<void> {
    await this.transactions.transaction(async () => {
      const revoked = await this.refreshTokens.revokeFamily(familyId);
      if (!revoked) return;
      const user = await this.users.findById(revoked.userId);
      if (!user) return; // unreachable: tokens are deleted with their user
      await this.outbox.enqueue(
        AuthSessionRevoked,
        { sessionId: familyId, userId: user.id, email: user.email, reason, revokedAt: revoked.revokedAt.toISOString() },
        { correlationId },
      );
    });
  }

  private async reuseDetected(familyId: string, correlationId?: string): Promise<never> {
    await this.revokeSession(familyId, 'reuse_detected', correlationId);
    throw logisticsUnauthorized('Refresh token was already used; the session has been revoked, log in again');
  }

  private async issue(user: LogisticsUser, familyId: string): Promise<LogisticsTokens> {
    const refresh = newRefreshToken();
    await this.refreshTokens.insert({
      familyId,
      userId: user.id,
      tokenHash: refresh.hash,
      expiresAt: new Date(Date.now() + LOGISTICS_REFRESH_TTL_SECONDS * 1000),
    });
    const access = await this.tokens.signLogistics(user, familyId);
    return { access_token: access.token, refresh_token: refresh.token, token_type: 'bearer', expires_in: access.expiresIn };
  }
}
