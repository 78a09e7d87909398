import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';

/** A user with the role that grants its permissions. */
export interface User {
  id: string;
  accountId: string;
  email: string;
  name: string;
  passwordHash: string;
  roleId: string;
  roleName: string;
  permissions: string[];
  active: boolean;
  createdAt: Date;
  updatedAt: Date;
}

interface UserRow {
  id: string;
  account_id: string;
  email: string;
  name: string;
  password_hash: string;
  role_id: string;
  role_name: string;
  permissions: string[];
  active: boolean;
  created_at: Date;
  updated_at: Date;
}

/** A user's columns, named (not `u.*`): the lookup every request's guard makes is planned once per connection. */
const USER_COLUMNS = ['id', 'account_id', 'email', 'name', 'password_hash', 'role_id', 'active', 'created_at', 'updated_at'].map((c) => `u.${c}`).join(', ');

const toUser = (r: UserRow): User => ({
  id: r.id,
  accountId: r.account_id,
  email: r.email,
  name: r.name,
  passwordHash: r.password_hash,
  roleId: r.role_id,
  roleName: r.role_name,
  permissions: r.permissions,
  active: r.active,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

@Injectable()
export class UsersRepository {
  constructor(private readonly db: Database) {}

  private select(where: string): string {
    return `SELECT ${USER_COLUMNS}, r.name AS role_name, r.permissions FROM ${this.db.table('users')} u
              JOIN ${this.db.table('roles')} r ON r.id = u.role_id WHERE ${where}`;
  }

  async findById(id: string): Promise<User | null> {
    const row = await this.db.one<UserRow>(this.select('u.id = $1'), [id]);
    return row ? toUser(row) : null;
  }

  async findByEmail(email: string): Promise<User | null> {
    const row = await this.db.one<UserRow>(this.select('lower(u.email) = lower($1)'), [email]);
    return row ? toUser(row) : null;
  }

  async find(accountId: string, id: string): Promise<User | null> {
    const row = await this.db.one<UserRow>(this.select('u.account_id = $1 AND u.id = $2'), [accountId, id]);
    return row ? toUser(row) : null;
  }

  async list(accountId: string, limit: number, offset: number): Promise<{ items: User[]; total: number }> {
    const rows = await this.db.rows<UserRow & { total: number }>(
      `${this.select('u.account_id = $1').replace('SELECT u.*', 'SELECT u.*, count(*) OVER ()::int AS total')} ORDER BY u.created_at, u.id LIMIT $2 OFFSET $3`,
      [accountId, limit, offset],
    );
    const total = rows[0]?.total ?? (await this.count(accountId));
    return { items: rows.map(toUser), total };
  }

  private async count(accountId: string): Promise<number> {
    const row = await this.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.db.table('users')} WHERE account_id = $1`, [accountId]);
    return row?.n ?? 0;
  }

  /** null when the email is taken (emails are unique over every account: login is by email). */
  async insert(u: { accountId: string; email: string; name: string; passwordHash: string; roleId: string }): Promise<string | null> {
    try {
      const row = await this.db.one<{ id: string }>(
        `INSERT INTO ${this.db.table('users')} (account_id, email, name, password_hash, role_id) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
        [u.accountId, u.email, u.name, u.passwordHash, u.roleId],
      );
      return row!.id;
    } catch (err) {
      if ((err as { code?: string }).code === '23505') return null;
      throw err;
    }
  }

  async update(accountId: string, id: string, patch: { name?: string; roleId?: string; active?: boolean }): Promise<boolean> {
    const n = await this.db.affected(
      `UPDATE ${this.db.table('users')} SET name = COALESCE($3, name), role_id = COALESCE($4, role_id), active = COALESCE($5, active), updated_at = now()
        WHERE account_id = $1 AND id = $2`,
      [accountId, id, patch.name ?? null, patch.roleId ?? null, patch.active ?? null],
    );
    return n === 1;
  }

  async setPassword(id: string, passwordHash: string): Promise<void> {
    await this.db.affected(`UPDATE ${this.db.table('users')} SET password_hash = $2, updated_at = now() WHERE id = $1`, [id, passwordHash]);
  }

  /** Active users of the account holding `admin` (so the last one cannot be demoted or deactivated). */
  async countActiveAdmins(accountId: string): Promise<number> {
    const row = await this.db.one<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${this.db.table('users')} u JOIN ${this.db.table('roles')} r ON r.id = u.role_id
        WHERE u.account_id = $1 AND u.active AND 'admin' = ANY(r.permissions)`,
      [accountId],
    );
    return row?.n ?? 0;
  }

  /** Which of `ids` are active users of the account. */
  async existing(accountId: string, ids: string[]): Promise<string[]> {
    if (!ids.length) return [];
    const rows = await this.db.rows<{ id: string }>(`SELECT id FROM ${this.db.table('users')} WHERE account_id = $1 AND id = ANY($2::uuid[])`, [accountId, ids]);
    return rows.map((r) => r.id);
  }
}
