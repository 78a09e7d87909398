import { Injectable } from '@nestjs/common';
import { hashPassword } from '@platform/auth';
import { Database } from '@platform/database';
import { ApiError } from '@platform/errors';
import type { Principal } from '../auth/principal';
import { conflict, notFound } from '../common/errors';
import { RolesRepository } from '../roles/roles.repository';
import { RefreshTokensRepository } from '../sessions/refresh-tokens.repository';
import type { CreateUserDto, UpdateUserDto } from './dto/user.dto';
import { UsersRepository, type User } from './users.repository';

const lastAdmin = () =>
  new ApiError(409, 'LAST_ADMINISTRATOR', 'The account must keep at least one active administrator', { suggestion: 'Make another user an administrator first.' });

@Injectable()
export class UsersService {
  constructor(
    private readonly db: Database,
    private readonly users: UsersRepository,
    private readonly roles: RolesRepository,
    private readonly sessions: RefreshTokensRepository,
  ) {}

  list(accountId: string, limit: number, offset: number) {
    return this.users.list(accountId, limit, offset);
  }

  async get(accountId: string, id: string): Promise<User> {
    const user = await this.users.find(accountId, id);
    if (!user) throw notFound('user');
    return user;
  }

  async create(accountId: string, dto: CreateUserDto): Promise<User> {
    if (!(await this.roles.find(accountId, dto.role_id))) throw notFound('role');
    const id = await this.users.insert({ accountId, email: dto.email, name: dto.name, passwordHash: await hashPassword(dto.password), roleId: dto.role_id });
    if (!id) throw conflict('EMAIL_TAKEN', `A user with the email ${dto.email} exists`, 'Use another email.');
    return this.get(accountId, id);
  }

  /** Role changes and deactivation keep at least one active administrator; deactivation ends the user's sessions. */
  async update(caller: Principal, id: string, dto: UpdateUserDto): Promise<User> {
    return this.db.transaction(async () => {
      const current = await this.get(caller.accountId, id);
      if (dto.role_id && !(await this.roles.find(caller.accountId, dto.role_id))) throw notFound('role');
      await this.users.update(caller.accountId, id, { name: dto.name, roleId: dto.role_id, active: dto.active });
      if (current.permissions.includes('admin') && current.active && (await this.users.countActiveAdmins(caller.accountId)) === 0) throw lastAdmin();
      if (dto.active === false) await this.sessions.revokeAllOfUser(id);
      return this.get(caller.accountId, id);
    });
  }
}
