import { Injectable } from '@nestjs/common';
import type { TokenPurpose, User } from './user';
import { UsersRepository } from './users.repository';

/**
 * Dashboard accounts as records, for the features that sign users up and in (password and OAuth
 * logins, verification and reset tokens): users by id or email, and their single-use tokens
 * (stored hashed). Calls join the caller's open transaction.
 */
@Injectable()
export class AccountsService {
  constructor(private readonly users: UsersRepository) {}

  findById(id: string): Promise<User | null> {
    return this.users.findById(id);
  }

  findByEmail(email: string): Promise<User | null> {
    return this.users.findByEmail(email);
  }

  /** A new user, or null when the email is taken. `verified`: the address is already proven (an OAuth provider said so). */
  create(email: string, name: string | null, passwordHash: string | null, verified = false): Promise<User | null> {
    return this.users.insert(email, name, passwordHash, verified);
  }

  markVerified(id: string): Promise<void> {
    return this.users.markVerified(id);
  }

  /** New password; every existing session of the user ends. */
  setPassword(id: string, passwordHash: string): Promise<void> {
    return this.users.setPassword(id, passwordHash);
  }

  /** A new token of the purpose (hashed); earlier unused ones of the purpose stop working. */
  async issueToken(userId: string, purpose: TokenPurpose, tokenHash: string, ttlSeconds: number): Promise<void> {
    await this.users.revokeTokens(userId, purpose);
    await this.users.insertToken(userId, purpose, tokenHash, ttlSeconds);
  }

  /** Spends an unused, unexpired token of the purpose; its user id, or null. */
  consumeToken(purpose: TokenPurpose, tokenHash: string): Promise<string | null> {
    return this.users.consumeToken(purpose, tokenHash);
  }

  revokeTokens(userId: string, purpose: TokenPurpose): Promise<void> {
    return this.users.revokeTokens(userId, purpose);
  }
}
