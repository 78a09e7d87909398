import { Injectable } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { conflict, notFound } from '../common/errors';
import type { CreateRoleDto, UpdateRoleDto } from './dto/role.dto';
import { BUILT_IN_ROLES } from './permissions';
import { RolesRepository, type Role } from './roles.repository';

export type { Role } from './roles.repository';

const builtIn = () => new ApiError(403, 'BUILT_IN_ROLE', 'Built-in roles cannot be changed or deleted', { suggestion: 'Create a custom role instead.' });

@Injectable()
export class RolesService {
  constructor(private readonly roles: RolesRepository) {}

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

  async create(accountId: string, dto: CreateRoleDto): Promise<Role> {
    const role = await this.roles.insert({ accountId, name: dto.name, description: dto.description, permissions: dto.permissions });
    if (!role) throw conflict('ROLE_NAME_TAKEN', `A role named ${dto.name} exists`, 'Choose another name.');
    return role;
  }

  async update(accountId: string, id: string, dto: UpdateRoleDto): Promise<Role> {
    const current = await this.get(accountId, id);
    if (current.builtIn) throw builtIn();
    const updated = await this.roles.update(accountId, id, dto);
    if (updated === 'taken') throw conflict('ROLE_NAME_TAKEN', `A role named ${dto.name} exists`, 'Choose another name.');
    if (!updated) throw notFound('role');
    return updated;
  }

  async delete(accountId: string, id: string): Promise<{ deleted: true }> {
    const current = await this.get(accountId, id);
    if (current.builtIn) throw builtIn();
    if ((await this.roles.countUsers(id)) > 0) throw conflict('ROLE_IN_USE', 'Users still hold this role', 'Give those users another role first.');
    await this.roles.delete(accountId, id);
    return { deleted: true };
  }
}
