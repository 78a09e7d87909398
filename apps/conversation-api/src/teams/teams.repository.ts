import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';

export interface Team {
  id: string;
  accountId: string;
  name: string;
  description: string | null;
  memberIds: string[];
  createdAt: Date;
}

interface Row {
  id: string;
  account_id: string;
  name: string;
  description: string | null;
  member_ids: string[];
  created_at: Date;
}

const toTeam = (r: Row): Team => ({ id: r.id, accountId: r.account_id, name: r.name, description: r.description, memberIds: r.member_ids, createdAt: r.created_at });

@Injectable()
export class TeamsRepository {
  constructor(private readonly db: Database) {}

  private select(where: string): string {
    return `SELECT t.*, COALESCE(array_agg(m.user_id ORDER BY m.user_id) FILTER (WHERE m.user_id IS NOT NULL), '{}') AS member_ids
              FROM ${this.db.table('teams')} t LEFT JOIN ${this.db.table('team_members')} m ON m.team_id = t.id
             WHERE ${where} GROUP BY t.id`;
  }

  async list(accountId: string): Promise<Team[]> {
    return (await this.db.rows<Row>(`${this.select('t.account_id = $1')} ORDER BY t.name`, [accountId])).map(toTeam);
  }

  async find(accountId: string, id: string): Promise<Team | null> {
    const row = await this.db.one<Row>(this.select('t.account_id = $1 AND t.id = $2'), [accountId, id]);
    return row ? toTeam(row) : null;
  }

  /** null when the name is taken. */
  async insert(accountId: string, name: string, description: string | null): Promise<string | null> {
    const row = await this.db.one<{ id: string }>(
      `INSERT INTO ${this.db.table('teams')} (account_id, name, description) VALUES ($1, $2, $3) ON CONFLICT (account_id, name) DO NOTHING RETURNING id`,
      [accountId, name, description],
    );
    return row?.id ?? null;
  }

  /** false when missing; 'taken' when the new name is another team's. */
  async update(accountId: string, id: string, patch: { name?: string; description?: string }): Promise<boolean | 'taken'> {
    try {
      return (
        (await this.db.affected(
          `UPDATE ${this.db.table('teams')} SET name = COALESCE($3, name), description = COALESCE($4, description) WHERE account_id = $1 AND id = $2`,
          [accountId, id, patch.name ?? null, patch.description ?? null],
        )) === 1
      );
    } catch (err) {
      if ((err as { code?: string }).code === '23505') return 'taken';
      throw err;
    }
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    return (await this.db.affected(`DELETE FROM ${this.db.table('teams')} WHERE account_id = $1 AND id = $2`, [accountId, id])) === 1;
  }

  async setMembers(teamId: string, userIds: string[]): Promise<void> {
    await this.db.affected(`DELETE FROM ${this.db.table('team_members')} WHERE team_id = $1`, [teamId]);
    if (userIds.length) {
      await this.db.affected(`INSERT INTO ${this.db.table('team_members')} (team_id, user_id) SELECT $1, unnest($2::uuid[]) ON CONFLICT DO NOTHING`, [teamId, userIds]);
    }
  }

  async isMember(teamId: string, userId: string): Promise<boolean> {
    const row = await this.db.one<{ ok: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${this.db.table('team_members')} WHERE team_id = $1 AND user_id = $2) AS ok`, [teamId, userId]);
    return row?.ok === true;
  }
}
