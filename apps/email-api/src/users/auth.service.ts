import { Injectable } from '@nestjs/common';
import { hashApiKey, hashPassword, verifyPassword } from '@platform/auth';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { randomBytes } from 'node:crypto';
import { AccountsService } from '../access/accounts.service';
import type { TokenPurpose, User } from '../access/user';
import { EmailApiConfig } from '../config';
import { AuthRateLimiter } from './auth-rate-limiter';
import { MailQueue } from '../emails/mail-queue.service';
import { escapeHtml } from '../emails/render';

const VERIFY_TTL_SECONDS = 24 * 60 * 60;
const RESET_TTL_SECONDS = 60 * 60;

export const invalidToken = () =>
  new ApiError(400, 'INVALID_TOKEN', 'The token is invalid, expired or already used', {
    suggestion: 'Request a new email (POST /auth/request-verification or /auth/request-password-reset) and use its token within its lifetime.',
  });

/**
 * Accounts of the dashboard: signup (unless DISABLE_SIGNUPS), login, email verification and password
 * reset with single-use, expiring tokens (stored hashed) delivered by mail through the send queue.
 */
@Injectable()
export class AuthService {
  constructor(
    private readonly config: EmailApiConfig,
    private readonly transactions: Transactions,
    private readonly users: AccountsService,
    private readonly mail: MailQueue,
    private readonly limits: AuthRateLimiter,
  ) {}

  async signup(email: string, password: string, name: string | undefined, ip: string): Promise<User> {
    if (this.config.DISABLE_SIGNUPS) {
      throw new ApiError(403, 'SIGNUPS_DISABLED', 'Signups are disabled on this server', { suggestion: 'Ask an administrator for an account.' });
    }
    await this.limits.hit('signup', ip, email);
    const user = await this.users.create(email, name?.trim() || null, await hashPassword(password));
    if (!user) {
      throw new ApiError(409, 'EMAIL_TAKEN', 'An account with this email already exists', { suggestion: 'Log in, or reset the password with POST /auth/request-password-reset.' });
    }
    await this.sendToken(user, 'verify_email');
    return user;
  }

  async login(email: string, password: string, ip: string): Promise<User> {
    const user = await this.limits.login(ip, email, async () => {
      const found = await this.users.findByEmail(email);
      return found && (await verifyPassword(found.passwordHash, password)) ? found : null;
    });
    if (!user) throw new ApiError(401, 'INVALID_CREDENTIALS', 'Incorrect email or password', { suggestion: 'Check the email and password, or reset the password.' });
    return user;
  }

  /** Sends a new verification email when the account exists and is unverified; says nothing either way. */
  async requestVerification(email: string): Promise<void> {
    const user = await this.users.findByEmail(email);
    if (user && !user.emailVerifiedAt) await this.sendToken(user, 'verify_email');
  }

  async verifyEmail(token: string): Promise<void> {
    await this.transactions.transaction(async () => {
      const userId = await this.users.consumeToken('verify_email', hashApiKey(token));
      if (!userId) throw invalidToken();
      await this.users.markVerified(userId);
    });
  }

  async requestPasswordReset(email: string, ip: string): Promise<void> {
    await this.limits.hit('reset', ip, email);
    const user = await this.users.findByEmail(email);
    if (user) await this.sendToken(user, 'reset_password');
  }

  /** New password; the token is spent and every existing session of the user ends. */
  async resetPassword(token: string, password: string): Promise<void> {
    const passwordHash = await hashPassword(password);
    await this.transactions.transaction(async () => {
      const userId = await this.users.consumeToken('reset_password', hashApiKey(token));
      if (!userId) throw invalidToken();
      await this.users.setPassword(userId, passwordHash);
      await this.users.revokeTokens(userId, 'reset_password');
      // Receiving the reset email proves the address as well.
      await this.users.markVerified(userId);
    });
  }

  private async sendToken(user: User, purpose: TokenPurpose): Promise<void> {
    const token = randomBytes(32).toString('base64url');
    const ttl = purpose === 'verify_email' ? VERIFY_TTL_SECONDS : RESET_TTL_SECONDS;
    await this.users.issueToken(user.id, purpose, hashApiKey(token), ttl);
    const verify = purpose === 'verify_email';
    const subject = verify ? 'Verify your email address' : 'Reset your password';
    const action = verify ? 'POST /auth/verify-email' : 'POST /auth/reset-password';
    const html =
      `<p>Hello${user.name ? ` ${escapeHtml(user.name)}` : ''},</p>` +
      `<p>${verify ? 'Confirm your email address' : 'Choose a new password'} with this token (valid for ${verify ? '24 hours' : '1 hour'}, usable once):</p>` +
      `<p><code id="token">${token}</code></p><p>It is accepted by <code>${action}</code> at ${escapeHtml(this.config.PUBLIC_BASE_URL)}.</p>` +
      `<p>If you did not ask for this, ignore this email.</p>`;
    await this.mail.enqueue({
      projectId: null,
      contactId: null,
      kind: 'SYSTEM',
      source: 'SYSTEM',
      to: user.email,
      from: this.config.EMAIL_FROM,
      fromName: null,
      replyTo: null,
      subject,
      html,
      headers: { 'X-Email-Purpose': purpose },
      attachments: [],
      data: null,
    });
    this.mail.flush();
  }
}
