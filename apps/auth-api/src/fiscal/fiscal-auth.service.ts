import { Injectable } from '@nestjs/common';
import { hashPassword, verifyPassword } from '@platform/auth';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { AuthUserCreated, Outbox } from '@platform/messaging';
import { LoginRateLimiter } from '../rate-limit/login-rate-limiter';
import { TokenService } from '../tokens/token.service';
import type { FiscalUser } from './entities/fiscal-user.entity';
import { FiscalUsersRepository } from './fiscal-users.repository';

const WWW_AUTHENTICATE = { 'WWW-Authenticate': 'Bearer' };

export function incorrectCredentials(): ApiError {
  return new ApiError(401, 'INCORRECT_CREDENTIALS', 'Incorrect email or password', { headers: WWW_AUTHENTICATE });
}

export function invalidToken(): ApiError {
  return new ApiError(401, 'INVALID_TOKEN', 'Could not validate credentials', { headers: WWW_AUTHENTICATE });
}

export interface TokenResponse {
  access_token: string;
  token_type: 'bearer';
}

@Injectable()
export class FiscalAuthService {
  constructor(
    private readonly users: FiscalUsersRepository,
    private readonly tokens: TokenService,
    private readonly transactions: Transactions,
    private readonly outbox: Outbox,
    private readonly limiter: LoginRateLimiter,
  ) {}

  /**
   * Checks the credentials (the password is verified, against a dummy hash for unknown emails, so
   * the answer takes as long either way) and issues a 24-hour token. Unknown email, wrong password
   * and inactive account all give the same 401; failures count against the login limits of the
   * client `ip` (429 at the limit).
   */
  async login(email: string, password: string, ip: string): Promise<TokenResponse> {
    const user = await this.limiter.guard(ip, email, async () => {
      const found = await this.users.findByEmail(email);
      const ok = await verifyPassword(found?.passwordHash, password);
      return found && ok && found.isActive ? found : null;
    });
    if (!user) throw incorrectCredentials();
    return this.issue(user);
  }

  async issue(user: FiscalUser): Promise<TokenResponse> {
    const { token } = await this.tokens.signFiscal(user.email);
    return { access_token: token, token_type: 'bearer' };
  }

  /** The active user a valid part B token names, or null. */
  async authenticate(token: string): Promise<FiscalUser | null> {
    const claims = await this.tokens.verifyFiscal(token);
    const user = await this.users.findByEmail(claims.sub);
    return user?.isActive ? user : null;
  }

  /**
   * Creates a user (command line, start-up bootstrap); false when the email is taken. The event
   * `auth.user_created` is stored in the same transaction as the user.
   */
  async createUser(input: { email: string; password: string; role: string; fullName: string | null }): Promise<boolean> {
    const passwordHash = await hashPassword(input.password);
    return this.transactions.transaction(async () => {
      const created = await this.users.insertIfMissing({ email: input.email, passwordHash, role: input.role, fullName: input.fullName });
      if (!created) return false;
      await this.outbox.enqueue(AuthUserCreated, {
        realm: 'fiscal',
        userId: String(created.id),
        email: created.email,
        role: created.role,
        createdAt: created.createdAt.toISOString(),
      });
      return true;
    });
  }

  /** Creates the user unless the email exists (start-up bootstrap); hashes only when needed. */
  async ensureUser(input: { email: string; password: string; role: string; fullName: string | null }): Promise<boolean> {
    if (await this.users.findByEmail(input.email)) return false;
    return this.createUser(input);
  }
}
