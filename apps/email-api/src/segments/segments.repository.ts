import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { Condition } from './condition';
import type { SegmentRow } from './segment';

@Injectable()
export class SegmentsRepository {
  constructor(private readonly db: Database) {}

  private get members(): string {
    return this.db.table('segment_members');
  }

  private get table(): string {
    return this.db.table('segments');
  }

  insert(projectId: string, s: { name: string; slug: string; description: string | null; type: string; condition: Condition | null; trackMembership: boolean }): Promise<SegmentRow | null> {
    return this.db.one<SegmentRow>(
      `INSERT INTO ${this.table} (project_id, name, slug, description, type, condition, track_membership) VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7) RETURNING *`,
      [projectId, s.name, s.slug, s.description, s.type, s.condition ? JSON.stringify(s.condition) : null, s.trackMembership],
    );
  }

  list(projectId: string): Promise<SegmentRow[]> {
    return this.db.rows<SegmentRow>(`SELECT * FROM ${this.table} WHERE project_id = $1 ORDER BY created_at DESC, id DESC`, [projectId]);
  }

  findById(projectId: string, id: string, lock = false): Promise<SegmentRow | null> {
    return this.db.one<SegmentRow>(`SELECT * FROM ${this.table} WHERE project_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [projectId, id]);
  }

  update(id: string, patch: { name?: string; slug?: string; description?: string | null; condition?: Condition; trackMembership?: boolean }): Promise<SegmentRow | null> {
    return this.db.one<SegmentRow>(
      `UPDATE ${this.table} SET name = coalesce($2, name), slug = coalesce($3, slug),
              description = CASE WHEN $4 THEN $5 ELSE description END,
              condition = coalesce($6::jsonb, condition), track_membership = coalesce($7, track_membership), updated_at = now()
        WHERE id = $1 RETURNING *`,
      [id, patch.name ?? null, patch.slug ?? null, patch.description !== undefined, patch.description ?? null, patch.condition ? JSON.stringify(patch.condition) : null, patch.trackMembership ?? null],
    );
  }

  /** Whether the segment is of this project, locked against a concurrent delete (FOR SHARE) until the transaction ends. */
  async existsLocked(projectId: string, id: string): Promise<boolean> {
    return (await this.db.one(`SELECT 1 FROM ${this.table} WHERE project_id = $1 AND id = $2 FOR SHARE`, [projectId, id])) !== null;
  }

  async delete(id: string): Promise<void> {
    await this.db.affected(`DELETE FROM ${this.table} WHERE id = $1`, [id]);
  }

  /** Campaigns not yet finished that send to the segment. */
  async activeCampaigns(id: string): Promise<number> {
    const row = await this.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.db.table('campaigns')} WHERE segment_id = $1 AND status IN ('DRAFT', 'SCHEDULED', 'SENDING')`, [id]);
    return row!.n;
  }

  /** Other segments whose condition references this one. */
  async referencedBy(projectId: string, id: string): Promise<string[]> {
    const rows = await this.db.rows<{ name: string }>(`SELECT name FROM ${this.table} WHERE project_id = $1 AND id <> $2 AND condition::text LIKE '%' || $2 || '%'`, [projectId, id]);
    return rows.map((r) => r.name);
  }

  async saveCount(id: string, count: number): Promise<SegmentRow | null> {
    return this.db.one<SegmentRow>(`UPDATE ${this.table} SET member_count = $2, counted_at = now() WHERE id = $1 RETURNING *`, [id, count]);
  }

  /** STATIC members: adds contacts (re-entering exited ones); answers how many became members. */
  async addMembers(segmentId: string, contactIds: string[]): Promise<number> {
    if (!contactIds.length) return 0;
    const rows = await this.db.rows(
      `INSERT INTO ${this.members} (segment_id, contact_id) SELECT $1, unnest($2::text[])
       ON CONFLICT (segment_id, contact_id) DO UPDATE SET entered_at = now(), exited_at = NULL WHERE ${this.members}.exited_at IS NOT NULL
       RETURNING contact_id`,
      [segmentId, contactIds],
    );
    return rows.length;
  }

  async removeMembers(segmentId: string, contactIds: string[]): Promise<number> {
    if (!contactIds.length) return 0;
    return this.db.affected(`UPDATE ${this.members} SET exited_at = now() WHERE segment_id = $1 AND contact_id = ANY($2::text[]) AND exited_at IS NULL`, [segmentId, contactIds]);
  }

  /** Segments whose condition names this condition field (or a path below it). */
  async referencing(projectId: string, field: string): Promise<Array<{ id: string; name: string }>> {
    return this.db.rows(
      `SELECT id, name FROM ${this.table}
        WHERE project_id = $1 AND condition IS NOT NULL AND jsonb_path_exists(condition, '$.** ? (@.field == $f || @.field starts with $p)', jsonb_build_object('f', $2::text, 'p', $2::text || '.'))
        ORDER BY name, id`,
      [projectId, field],
    );
  }
}
