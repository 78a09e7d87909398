import { Injectable } from '@nestjs/common';
import { AccountsRepository, type Account } from './accounts.repository';

export type { Account } from './accounts.repository';

/** Accounts (tenants): opening one with its roles and administrator is the OpenAccount use case. */
@Injectable()
export class AccountsService {
  constructor(private readonly accounts: AccountsRepository) {}

  /** Stores a new account (nothing else: see OpenAccount). */
  add(name: string): Promise<Account> {
    return this.accounts.insert(name);
  }

  /** The next per-account conversation number (`display_id`), atomically (inside the caller's transaction). */
  nextDisplayId(accountId: string): Promise<number> {
    return this.accounts.nextDisplayId(accountId);
  }
}
