import { Injectable } from '@nestjs/common';
import { hashPassword } from '@platform/auth';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { AuthUserCreated, Outbox } from '@platform/messaging';
import type { LogisticsRole, LogisticsUser } from './entities/logistics-user.entity';
import { LogisticsUsersRepository } from './logistics-users.repository';

export interface NewUserInput {
  email: string;
  password: string;
  role: LogisticsRole;
  fullName: string | null;
}

@Injectable()
export class LogisticsUsersService {
  constructor(
    private readonly users: LogisticsUsersRepository,
    private readonly transactions: Transactions,
    private readonly outbox: Outbox,
  ) {}

  list(page: number, limit: number): Promise<{ items: LogisticsUser[]; total: number }> {
    return this.users.list(page, limit);
  }

  /** Creates a user; 409 when the email is taken. `correlationId`: the request id, carried by the event. */
  async create(input: NewUserInput, correlationId?: string): Promise<LogisticsUser> {
    if (await this.users.findByEmail(input.email)) throw duplicate();
    const created = await this.insert(input, correlationId);
    if (!created) throw duplicate(); // lost a race with a concurrent create
    return created;
  }

  /** Creates the user unless the email exists (start-up bootstrap). True when created. */
  async ensure(input: NewUserInput): Promise<boolean> {
    if (await this.users.findByEmail(input.email)) return false;
    return (await this.insert(input)) !== null;
  }

  /** Inserts the user and its `auth.user_created` event in one transaction; null when the email is taken. */
  private async insert(input: NewUserInput, correlationId?: string): Promise<LogisticsUser | null> {
    const passwordHash = await hashPassword(input.password);
    return this.transactions.transaction(async () => {
      const user = await this.users.insertIfMissing({ email: input.email, role: input.role, fullName: input.fullName, passwordHash });
      if (!user) return null;
      await this.outbox.enqueue(
        AuthUserCreated,
        { realm: 'logistics', userId: user.id, email: user.email, role: user.role, createdAt: user.createdAt.toISOString() },
        { correlationId },
      );
      return user;
    });
  }
}

function duplicate(): ApiError {
  return new ApiError(409, 'EMAIL_TAKEN', 'A user with this email already exists');
}
