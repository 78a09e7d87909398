import { Injectable } from '@nestjs/common';
import { hashPassword } from '@platform/auth';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import type { Principal } from '../access/principal';
import { conflict, notFound } from '../common/errors';
import { administratorsLockKey, assertGrantable } from '../access/permissions';
import { RolesService } from '../roles/roles.service';
import { SessionsService } from '../sessions/sessions.service';
import type { CreateUserDto, UpdateUserDto } from './dto/user.dto';
import { UsersRepository, type User } from './users.repository';

export type { User } from './users.repository';

const lastAdmin = () =>
  new ApiError(409, 'LAST_ADMINISTRATOR', 'The account must keep at least one active administrator', { suggestion: 'Make another user an administrator first.' });

@Injectable()
export class UsersService {
  constructor(
    private readonly transactions: Transactions,
    private readonly users: UsersRepository,
    private readonly roles: RolesService,
    private readonly sessions: SessionsService,
  ) {}

  list(accountId: string, limit: number, offset: number) {
    return this.users.list(accountId, limit, offset);
  }

  async get(accountId: string, id: string): Promise<User> {
    const user = await this.find(accountId, id);
    if (!user) throw notFound('user');
    return user;
  }

  /** The account's user, or null. */
  find(accountId: string, id: string): Promise<User | null> {
    return this.users.find(accountId, id);
  }

  /** Any account's user by id (access tokens name the user); null when missing. */
  findById(id: string): Promise<User | null> {
    return this.users.findById(id);
  }

  /** Any account's user by email, case-insensitively (login is by email); null when missing. */
  findByEmail(email: string): Promise<User | null> {
    return this.users.findByEmail(email);
  }

  /** The ids of `ids` that are not users of the account. */
  async unknownIds(accountId: string, ids: string[]): Promise<string[]> {
    const known = new Set(await this.users.existing(accountId, ids));
    return ids.filter((id) => !known.has(id));
  }

  /** A new user; the caller may only give a role whose permissions it holds (`admin`: administrators only). */
  async create(caller: Principal, dto: CreateUserDto): Promise<User> {
    const accountId = caller.accountId;
    const role = await this.roles.get(accountId, dto.role_id);
    assertGrantable(caller.permissions, role.permissions, 'give this role');
    const id = await this.add(accountId, { email: dto.email, name: dto.name, passwordHash: await hashPassword(dto.password), roleId: dto.role_id });
    return this.get(accountId, id);
  }

  /** Stores a user whose password is hashed already; 409 `EMAIL_TAKEN` when the email is anyone's. */
  async add(accountId: string, u: { email: string; name: string; passwordHash: string; roleId: string }): Promise<string> {
    const id = await this.users.insert({ accountId, ...u });
    if (!id) throw conflict('EMAIL_TAKEN', `A user with the email ${u.email} exists`, 'Use another email.');
    return id;
  }

  setPassword(id: string, passwordHash: string): Promise<void> {
    return this.users.setPassword(id, passwordHash);
  }

  /**
   * Renames, changes the role of, or (de)activates a user. The caller may only change users whose
   * permissions it holds itself and only give roles whose permissions it holds (so `users:manage`
   * alone never makes anyone, itself included, an administrator, nor touches one). Role changes and
   * deactivation keep at least one active administrator: they take the account's administrators
   * lock first, so two racing demotions cannot both pass the check. Deactivation ends the user's sessions.
   */
  async update(caller: Principal, id: string, dto: UpdateUserDto): Promise<User> {
    return this.transactions.transaction(async () => {
      await this.transactions.lock(administratorsLockKey(caller.accountId));
      const current = await this.get(caller.accountId, id);
      assertGrantable(caller.permissions, current.permissions, 'change this user');
      if (dto.role_id) assertGrantable(caller.permissions, (await this.roles.get(caller.accountId, dto.role_id)).permissions, 'give this role');
      await this.users.update(caller.accountId, id, { name: dto.name, roleId: dto.role_id, active: dto.active });
      if (current.permissions.includes('admin') && current.active && (await this.users.countActiveAdmins(caller.accountId)) === 0) throw lastAdmin();
      if (dto.active === false) await this.sessions.revokeAllOfUser(id, 'deactivated');
      else if (dto.role_id && dto.role_id !== current.roleId) await this.sessions.endSockets({ scope: 'user', id, reason: 'role_changed' });
      return this.get(caller.accountId, id);
    });
  }
}
