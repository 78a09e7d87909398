import { Injectable } from '@nestjs/common';
import { assessRefreshToken, hashPassword, verifyPassword } from '@platform/auth';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { randomUUID } from 'node:crypto';
import { ConversationApiConfig, PASSWORD_RESET_TTL_SECONDS, REFRESH_TOKEN_TTL_SECONDS } from '../config';
import { MailWorker } from '../mail/mail.worker';
import { MailerService } from '../mail/mailer.service';
import { SessionsService } from '../sessions/sessions.service';
import { UsersService, type User } from '../users/users.service';
import { AccessTokens } from './access-tokens';
import { PasswordResetsRepository } from './password-resets.repository';
import type { Principal } from '../access/principal';
import { newOpaqueToken, tokenHash } from './refresh-rotation';

export interface TokenPair {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  refresh_expires_in: number;
}

const WWW = { 'WWW-Authenticate': 'Bearer' };
const LOGIN_AGAIN = 'Log in again with POST /api/v1/auth/login.';

@Injectable()
export class AuthService {
  constructor(
    private readonly transactions: Transactions,
    private readonly config: ConversationApiConfig,
    private readonly users: UsersService,
    private readonly sessions: SessionsService,
    private readonly resets: PasswordResetsRepository,
    private readonly tokens: AccessTokens,
    private readonly mailer: MailerService,
    private readonly mailWorker: MailWorker,
  ) {}

  /** Checks the credentials (as slow for unknown emails) and opens a session (a refresh-token family). */
  async login(email: string, password: string): Promise<TokenPair> {
    const user = await this.users.findByEmail(email);
    const ok = await verifyPassword(user?.passwordHash, password);
    if (!user || !ok || !user.active) {
      throw new ApiError(401, 'INVALID_CREDENTIALS', 'Incorrect email or password', { suggestion: 'Check the email and password, or reset the password with POST /api/v1/auth/password-reset.', headers: WWW });
    }
    return this.issue(user, randomUUID());
  }

  /**
   * Rotates a refresh token: it is used up and the next one of its family returned. Presenting a
   * used-up token again revokes the whole family (every later refresh of that session fails).
   */
  async refresh(refreshToken: string): Promise<TokenPair> {
    const stored = await this.sessions.findToken(tokenHash(refreshToken));
    const verdict = assessRefreshToken(stored, new Date());
    if (verdict.kind === 'refuse' || !stored) {
      throw new ApiError(401, 'INVALID_REFRESH_TOKEN', `The refresh token is ${verdict.kind === 'refuse' ? verdict.reason : 'unknown'}`, { suggestion: LOGIN_AGAIN, headers: WWW });
    }
    if (verdict.kind === 'reuse' || !(await this.sessions.useToken(stored.id))) return this.reuseDetected(stored.familyId);
    const user = await this.users.findById(stored.userId);
    if (!user?.active) {
      await this.sessions.revoke(stored.familyId, 'user_inactive');
      throw new ApiError(401, 'INVALID_REFRESH_TOKEN', 'The user is deactivated', { suggestion: LOGIN_AGAIN, headers: WWW });
    }
    return this.issue(user, stored.familyId);
  }

  /** Ends the caller's session: its refresh-token family is revoked, so its access tokens stop working too. */
  async logout(principal: Principal): Promise<{ revoked: boolean }> {
    return { revoked: (await this.sessions.revoke(principal.sessionId, 'logout')) > 0 };
  }

  /** The caller of a valid access token whose user is active and whose session is alive; else null. */
  async authenticate(accessToken: string): Promise<Principal | null> {
    const claims = await this.tokens.verify(accessToken);
    if (!claims) return null;
    const [user, alive] = await Promise.all([this.users.findById(claims.sub), this.sessions.isActive(claims.sid)]);
    if (!user?.active || !alive || user.accountId !== claims.acc) return null;
    return {
      userId: user.id,
      accountId: user.accountId,
      email: user.email,
      name: user.name,
      role: user.roleName,
      roleId: user.roleId,
      permissions: user.permissions,
      sessionId: claims.sid,
      expiresAt: claims.exp,
    };
  }

  /**
   * Queues a single-use reset link (valid one hour) when the email belongs to an active user: the
   * token and the mail are written in one transaction and the mail worker sends it, so the answer —
   * the same whether or not the email is known (no account discovery) — no longer waits for SMTP
   * either. `mail` says whether mail goes out (`queued`) or, without SMTP_URL, is only stored (`unsent`).
   */
  async requestPasswordReset(email: string): Promise<{ requested: true; mail: 'queued' | 'unsent' }> {
    const mode = this.mailer.mode;
    const user = await this.users.findByEmail(email);
    if (!user?.active) return { requested: true, mail: mode };
    const { token, hash } = newOpaqueToken('crp');
    const link = `${this.config.CONVERSATION_RESET_URL}${this.config.CONVERSATION_RESET_URL.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}`;
    await this.transactions.transaction(async () => {
      await this.resets.invalidateOthers(user.id);
      await this.resets.insert(user.id, hash, new Date(Date.now() + PASSWORD_RESET_TTL_SECONDS * 1000));
      await this.mailer.queue(
        'password_reset',
        user.email,
        'Reset your password',
        [`Hello ${user.name},`, '', 'Someone asked to reset the password of your account. To choose a new one, open:', link, '', `Or send this token to POST /api/v1/auth/password-reset/confirm: ${token}`, '', 'The link works once, for one hour. If you did not ask for it, ignore this mail.'].join('\n'),
      );
    });
    this.mailWorker.wake();
    return { requested: true, mail: mode };
  }

  /** Sets the new password with a reset token (once, before it expires) and ends every session of the user. */
  async confirmPasswordReset(token: string, password: string): Promise<{ reset: true }> {
    const passwordHash = await hashPassword(password);
    const done = await this.transactions.transaction(async () => {
      const userId = await this.resets.consume(tokenHash(token));
      if (!userId) return false;
      await this.users.setPassword(userId, passwordHash);
      await this.resets.invalidateOthers(userId);
      await this.sessions.revokeAllOfUser(userId, 'password_reset');
      return true;
    });
    if (!done) {
      throw new ApiError(400, 'INVALID_RESET_TOKEN', 'The reset token is unknown, used or expired', { suggestion: 'Ask for a new one with POST /api/v1/auth/password-reset.' });
    }
    return { reset: true };
  }

  private async reuseDetected(familyId: string): Promise<never> {
    await this.sessions.revoke(familyId, 'refresh_reuse');
    throw new ApiError(401, 'REFRESH_TOKEN_REUSED', 'This refresh token was already used; the session has been revoked', { suggestion: LOGIN_AGAIN, headers: WWW });
  }

  private async issue(user: User, familyId: string): Promise<TokenPair> {
    const refresh = newOpaqueToken('crt');
    await this.sessions.addToken({ familyId, userId: user.id, tokenHash: refresh.hash, expiresAt: new Date(Date.now() + REFRESH_TOKEN_TTL_SECONDS * 1000) });
    const access = await this.tokens.sign({ sub: user.id, acc: user.accountId, sid: familyId });
    return { access_token: access.token, token_type: 'Bearer', expires_in: access.expiresIn, refresh_token: refresh.token, refresh_expires_in: REFRESH_TOKEN_TTL_SECONDS };
  }
}
