import { Injectable } from '@nestjs/common';
import { hashPassword } from '@platform/auth';
import { Transactions } from '@platform/database';
import { RolesService } from '../roles/roles.service';
import { UsersService } from '../users/users.service';
import { AccountsService, type Account } from './accounts.service';

export interface NewAccount {
  account: Account;
  adminId: string;
}

export interface AccountAdmin {
  email: string;
  name: string;
  password: string;
}

/**
 * Opens an account (tenant): the account, its built-in roles (administrator, agent) and its first
 * administrator, in one transaction — nothing stays when the email is taken (409 `EMAIL_TAKEN`).
 * Used by the `create-account` command and, at start, by FirstAdminService.
 */
@Injectable()
export class OpenAccount {
  constructor(
    private readonly transactions: Transactions,
    private readonly accounts: AccountsService,
    private readonly roles: RolesService,
    private readonly users: UsersService,
  ) {}

  async execute(name: string, admin: AccountAdmin): Promise<NewAccount> {
    // Hashed before the transaction opens: argon2 takes a while and holds no lock.
    const passwordHash = await hashPassword(admin.password);
    return this.transactions.transaction(async () => {
      const account = await this.accounts.add(name);
      const administrator = (await this.roles.createBuiltIns(account.id)).find((r) => r.name === 'administrator');
      if (!administrator) throw new Error(`account ${account.id}: the administrator role was not created`);
      const adminId = await this.users.add(account.id, { email: admin.email, name: admin.name, passwordHash, roleId: administrator.id });
      return { account, adminId };
    });
  }
}
