import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { Member } from './project';
import type { ProjectRole } from './roles';

interface MemberRow {
  user_id: string;
  email: string;
  name: string | null;
  role: ProjectRole;
  created_at: Date;
}

const toMember = (r: MemberRow): Member => ({ userId: r.user_id, email: r.email, name: r.name, role: r.role, createdAt: r.created_at });

@Injectable()
export class MembersRepository {
  constructor(private readonly db: Database) {}

  async list(projectId: string): Promise<Member[]> {
    const rows = await this.db.rows<MemberRow>(
      `SELECT m.user_id, u.email, u.name, m.role, m.created_at FROM ${this.db.table('project_members')} m
         JOIN ${this.db.table('users')} u ON u.id = m.user_id
        WHERE m.project_id = $1 ORDER BY m.created_at ASC, u.email ASC`,
      [projectId],
    );
    return rows.map(toMember);
  }

  async find(projectId: string, userId: string): Promise<Member | null> {
    const row = await this.db.one<MemberRow>(
      `SELECT m.user_id, u.email, u.name, m.role, m.created_at FROM ${this.db.table('project_members')} m
         JOIN ${this.db.table('users')} u ON u.id = m.user_id
        WHERE m.project_id = $1 AND m.user_id = $2`,
      [projectId, userId],
    );
    return row ? toMember(row) : null;
  }

  /** Adds the member; false when the user already is one. */
  async add(projectId: string, userId: string, role: ProjectRole): Promise<boolean> {
    const rows = await this.db.rows(
      `INSERT INTO ${this.db.table('project_members')} (project_id, user_id, role) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING user_id`,
      [projectId, userId, role],
    );
    return rows.length > 0;
  }

  /**
   * Changes a role unless that would leave the project without an owner (checked in the same
   * statement, so two concurrent demotions cannot both pass). Returns 'ok', 'missing' or 'last-owner'.
   */
  async setRole(projectId: string, userId: string, role: ProjectRole): Promise<'ok' | 'missing' | 'last-owner'> {
    return this.db.transaction(async () => {
      const owners = await this.db.rows<{ user_id: string; role: string }>(
        `SELECT user_id, role FROM ${this.db.table('project_members')} WHERE project_id = $1 FOR UPDATE`,
        [projectId],
      );
      const target = owners.find((o) => o.user_id === userId);
      if (!target) return 'missing';
      if (target.role === 'OWNER' && role !== 'OWNER' && owners.filter((o) => o.role === 'OWNER').length === 1) return 'last-owner';
      await this.db.affected(`UPDATE ${this.db.table('project_members')} SET role = $3 WHERE project_id = $1 AND user_id = $2`, [projectId, userId, role]);
      return 'ok';
    });
  }

  async remove(projectId: string, userId: string): Promise<'ok' | 'missing' | 'last-owner'> {
    return this.db.transaction(async () => {
      const members = await this.db.rows<{ user_id: string; role: string }>(
        `SELECT user_id, role FROM ${this.db.table('project_members')} WHERE project_id = $1 FOR UPDATE`,
        [projectId],
      );
      const target = members.find((o) => o.user_id === userId);
      if (!target) return 'missing';
      if (target.role === 'OWNER' && members.filter((o) => o.role === 'OWNER').length === 1) return 'last-owner';
      await this.db.affected(`DELETE FROM ${this.db.table('project_members')} WHERE project_id = $1 AND user_id = $2`, [projectId, userId]);
      return 'ok';
    });
  }
}
