import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { Keyset } from '../common/pagination';
import type { Suppression, SuppressionReason } from './suppression';

interface Row {
  email: string;
  reason: SuppressionReason;
  source: string;
  created_at: Date;
}

const toSuppression = (r: Row): Suppression => ({ email: r.email, reason: r.reason, source: r.source, createdAt: r.created_at });

/** `%`, `_` and `\` of a search term matched literally by LIKE. */
const likeEscape = (term: string) => term.replace(/[\\%_]/g, (c) => `\\${c}`);

@Injectable()
export class SuppressionsRepository {
  constructor(private readonly db: Database) {}

  private get table(): string {
    return this.db.table('suppressions');
  }

  /** Adds the address; an existing entry is kept as it is. Answers whether it was new. */
  async insert(projectId: string, email: string, reason: SuppressionReason, source: string): Promise<boolean> {
    const n = await this.db.affected(`INSERT INTO ${this.table} (project_id, email, reason, source) VALUES ($1, $2, $3, $4) ON CONFLICT (project_id, email) DO NOTHING`, [projectId, email, reason, source]);
    return n > 0;
  }

  async find(projectId: string, email: string): Promise<Suppression | null> {
    const row = await this.db.one<Row>(`SELECT email, reason, source, created_at FROM ${this.table} WHERE project_id = $1 AND email = $2`, [projectId, email]);
    return row ? toSuppression(row) : null;
  }

  /** The suppressed ones of these addresses. */
  async findMany(projectId: string, emails: string[]): Promise<Suppression[]> {
    if (!emails.length) return [];
    const rows = await this.db.rows<Row>(`SELECT email, reason, source, created_at FROM ${this.table} WHERE project_id = $1 AND email = ANY($2::text[])`, [projectId, emails]);
    return rows.map(toSuppression);
  }

  /** The entries of these (project, address) pairs, across projects. */
  async findPairs(pairs: Array<{ projectId: string; email: string }>): Promise<Array<Suppression & { projectId: string }>> {
    if (!pairs.length) return [];
    const rows = await this.db.rows<Row & { project_id: string }>(
      `SELECT s.project_id, s.email, s.reason, s.source, s.created_at FROM ${this.table} s
         JOIN unnest($1::uuid[], $2::text[]) AS u(project_id, email) ON s.project_id = u.project_id AND s.email = u.email`,
      [pairs.map((p) => p.projectId), pairs.map((p) => p.email)],
    );
    return rows.map((r) => ({ ...toSuppression(r), projectId: r.project_id }));
  }

  async deleteReason(projectId: string, email: string, reason: SuppressionReason): Promise<boolean> {
    return (await this.db.affected(`DELETE FROM ${this.table} WHERE project_id = $1 AND email = $2 AND reason = $3`, [projectId, email, reason])) > 0;
  }

  async delete(projectId: string, email: string): Promise<boolean> {
    return (await this.db.affected(`DELETE FROM ${this.table} WHERE project_id = $1 AND email = $2`, [projectId, email])) > 0;
  }

  private where(projectId: string, search: string | undefined, params: unknown[]): string[] {
    params.push(projectId);
    const where = ['project_id = $1'];
    if (search) {
      params.push(`%${likeEscape(search.toLowerCase())}%`);
      where.push(`email LIKE $${params.length}`);
    }
    return where;
  }

  async page(projectId: string, limit: number, after: Keyset | null, search?: string): Promise<Array<Suppression & { id: string }>> {
    const params: unknown[] = [];
    const where = this.where(projectId, search, params);
    if (after) {
      params.push(after.createdAt, after.id);
      where.push(`(created_at, email) < ($${params.length - 1}, $${params.length})`);
    }
    params.push(limit + 1);
    const rows = await this.db.rows<Row>(
      `SELECT email, reason, source, created_at FROM ${this.table} WHERE ${where.join(' AND ')} ORDER BY created_at DESC, email DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map((r) => ({ ...toSuppression(r), id: r.email }));
  }

  async count(projectId: string, search?: string): Promise<number> {
    const params: unknown[] = [];
    const where = this.where(projectId, search, params);
    const row = await this.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.table} WHERE ${where.join(' AND ')}`, params);
    return row?.n ?? 0;
  }
}
