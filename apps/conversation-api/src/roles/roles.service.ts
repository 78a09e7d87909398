import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import type { Principal } from '../access/principal';
import { conflict, notFound } from '../common/errors';
import type { CreateRoleDto, UpdateRoleDto } from './dto/role.dto';
import { SessionsService } from '../sessions/sessions.service';
import { administratorsLockKey, assertGrantable, BUILT_IN_ROLES } from '../access/permissions';
import { RolesRepository, type Role } from './roles.repository';

export type { Role } from './roles.repository';

const builtIn = () => new ApiError(403, 'BUILT_IN_ROLE', 'Built-in roles cannot be changed or deleted', { suggestion: 'Create a custom role instead.' });

@Injectable()
export class RolesService {
  constructor(
    private readonly transactions: Transactions,
    private readonly roles: RolesRepository,
    private readonly sessions: SessionsService,
  ) {}

  list(accountId: string): Promise<Role[]> {
    return this.roles.list(accountId);
  }

  async get(accountId: string, id: string): Promise<Role> {
    const role = await this.roles.find(accountId, id);
    if (!role) throw notFound('role');
    return role;
  }

  /** The built-in roles (administrator, agent) of a new account. */
  async createBuiltIns(accountId: string): Promise<Role[]> {
    const created: Role[] = [];
    for (const [name, role] of Object.entries(BUILT_IN_ROLES)) {
      const inserted = await this.roles.insert({ accountId, name, description: role.description, permissions: role.permissions, builtIn: true });
      if (inserted) created.push(inserted);
    }
    return created;
  }

  /** A custom role; the caller may only put permissions in it that it holds (`admin`: administrators only). */
  async create(caller: Principal, dto: CreateRoleDto): Promise<Role> {
    assertGrantable(caller.permissions, dto.permissions, 'create this role');
    const role = await this.roles.insert({ accountId: caller.accountId, name: dto.name, description: dto.description, permissions: dto.permissions });
    if (!role) throw conflict('ROLE_NAME_TAKEN', `A role named ${dto.name} exists`, 'Choose another name.');
    return role;
  }

  /**
   * Edits a custom role. The caller must hold every permission of the role as it is and as it
   * becomes; taking `admin` away keeps at least one active administrator (under the account's
   * administrators lock).
   */
  async update(caller: Principal, id: string, dto: UpdateRoleDto): Promise<Role> {
    const accountId = caller.accountId;
    return this.transactions.transaction(async () => {
      await this.transactions.lock(administratorsLockKey(accountId));
      const current = await this.get(accountId, id);
      if (current.builtIn) throw builtIn();
      assertGrantable(caller.permissions, [...current.permissions, ...(dto.permissions ?? [])], 'change this role');
      const updated = await this.roles.update(accountId, id, dto);
      if (updated === 'taken') throw conflict('ROLE_NAME_TAKEN', `A role named ${dto.name} exists`, 'Choose another name.');
      if (!updated) throw notFound('role');
      if (current.permissions.includes('admin') && !updated.permissions.includes('admin') && (await this.roles.countActiveAdministrators(accountId)) === 0) {
        throw new ApiError(409, 'LAST_ADMINISTRATOR', 'The account must keep at least one active administrator', { suggestion: 'Make another user an administrator first.' });
      }
      if (dto.permissions) await this.sessions.endSockets({ scope: 'role', id, reason: 'role_changed' });
      return updated;
    });
  }

  async delete(caller: Principal, id: string): Promise<{ deleted: true }> {
    const accountId = caller.accountId;
    const current = await this.get(accountId, id);
    if (current.builtIn) throw builtIn();
    assertGrantable(caller.permissions, current.permissions, 'delete this role');
    if ((await this.roles.countUsers(id)) > 0) throw conflict('ROLE_IN_USE', 'Users still hold this role', 'Give those users another role first.');
    await this.roles.delete(accountId, id);
    return { deleted: true };
  }
}
