import { Injectable } from '@nestjs/common';
import { hashPassword } from '@platform/auth';
import { Database } from '@platform/database';
import { conflict } from '../common/errors';
import { RolesRepository } from '../roles/roles.repository';
import { BUILT_IN_ROLES } from '../roles/permissions';
import { UsersRepository } from '../users/users.repository';
import { AccountsRepository, type Account } from './accounts.repository';

export interface NewAccount {
  account: Account;
  adminId: string;
}

@Injectable()
export class AccountsService {
  constructor(
    private readonly db: Database,
    private readonly accounts: AccountsRepository,
    private readonly roles: RolesRepository,
    private readonly users: UsersRepository,
  ) {}

  /** Opens an account (tenant) with the built-in roles and its first administrator, in one transaction. */
  async create(name: string, admin: { email: string; name: string; password: string }): Promise<NewAccount> {
    const passwordHash = await hashPassword(admin.password);
    return this.db.transaction(async () => {
      const account = await this.accounts.insert(name);
      let administratorId = '';
      for (const [roleName, role] of Object.entries(BUILT_IN_ROLES)) {
        const created = await this.roles.insert({ accountId: account.id, name: roleName, description: role.description, permissions: role.permissions, builtIn: true });
        if (roleName === 'administrator') administratorId = created!.id;
      }
      const adminId = await this.users.insert({ accountId: account.id, email: admin.email, name: admin.name, passwordHash, roleId: administratorId });
      if (!adminId) throw conflict('EMAIL_TAKEN', `A user with the email ${admin.email} exists`, 'Use another email.');
      return { account, adminId };
    });
  }
}
