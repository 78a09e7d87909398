import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';

export interface Role {
  id: string;
  accountId: string;
  name: string;
  description: string | null;
  permissions: string[];
  builtIn: boolean;
  createdAt: Date;
}

interface RoleRow {
  id: string;
  account_id: string;
  name: string;
  description: string | null;
  permissions: string[];
  built_in: boolean;
  created_at: Date;
}

const toRole = (r: RoleRow): Role => ({
  id: r.id,
  accountId: r.account_id,
  name: r.name,
  description: r.description,
  permissions: r.permissions,
  builtIn: r.built_in,
  createdAt: r.created_at,
});

@Injectable()
export class RolesRepository {
  constructor(private readonly db: Database) {}

  private get t(): string {
    return this.db.table('roles');
  }

  async list(accountId: string): Promise<Role[]> {
    const rows = await this.db.rows<RoleRow>(`SELECT * FROM ${this.t} WHERE account_id = $1 ORDER BY built_in DESC, name`, [accountId]);
    return rows.map(toRole);
  }

  async find(accountId: string, id: string): Promise<Role | null> {
    const row = await this.db.one<RoleRow>(`SELECT * FROM ${this.t} WHERE account_id = $1 AND id = $2`, [accountId, id]);
    return row ? toRole(row) : null;
  }

  async findByName(accountId: string, name: string): Promise<Role | null> {
    const row = await this.db.one<RoleRow>(`SELECT * FROM ${this.t} WHERE account_id = $1 AND name = $2`, [accountId, name]);
    return row ? toRole(row) : null;
  }

  /** null when the name is taken in the account. */
  async insert(r: { accountId: string; name: string; description?: string | null; permissions: string[]; builtIn?: boolean }): Promise<Role | null> {
    const row = await this.db.one<RoleRow>(
      `INSERT INTO ${this.t} (account_id, name, description, permissions, built_in) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (account_id, name) DO NOTHING RETURNING *`,
      [r.accountId, r.name, r.description ?? null, r.permissions, r.builtIn ?? false],
    );
    return row ? toRole(row) : null;
  }

  /** Updates a custom role; null when missing, built in, or the new name is taken (`taken`). */
  async update(accountId: string, id: string, patch: { name?: string; description?: string | null; permissions?: string[] }): Promise<Role | 'taken' | null> {
    try {
      const row = await this.db.one<RoleRow>(
        `UPDATE ${this.t} SET name = COALESCE($3, name), description = CASE WHEN $4::boolean THEN $5 ELSE description END,
                permissions = COALESCE($6, permissions)
          WHERE account_id = $1 AND id = $2 AND NOT built_in RETURNING *`,
        [accountId, id, patch.name ?? null, patch.description !== undefined, patch.description ?? null, patch.permissions ?? null],
      );
      return row ? toRole(row) : null;
    } catch (err) {
      if ((err as { code?: string }).code === '23505') return 'taken';
      throw err;
    }
  }

  async countUsers(roleId: string): Promise<number> {
    const row = await this.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.db.table('users')} WHERE role_id = $1`, [roleId]);
    return row?.n ?? 0;
  }

  /** Users of the account who are active and whose role (as stored now) holds `admin`. */
  async countActiveAdministrators(accountId: string): Promise<number> {
    const row = await this.db.one<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${this.t} r JOIN ${this.db.table('users')} u ON u.role_id = r.id AND u.active
        WHERE r.account_id = $1 AND r.permissions @> ARRAY['admin']::text[]`,
      [accountId],
    );
    return row?.n ?? 0;
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    return (await this.db.affected(`DELETE FROM ${this.t} WHERE account_id = $1 AND id = $2 AND NOT built_in`, [accountId, id])) === 1;
  }
}
