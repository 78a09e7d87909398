import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { ContactRow } from '../contacts/contact';
import type { Condition } from './condition';
import type { SegmentRow } from './segment';

/** A compiled audience: an SQL boolean expression over contacts `c` and its parameters (from $2 on; $1 is the project). */
export interface Audience {
  sql: string;
  params: unknown[];
}

@Injectable()
export class SegmentsRepository {
  constructor(private readonly db: Database) {}

  get tables() {
    return {
      events: this.db.table('events'),
      emails: this.db.table('emails'),
      segmentMembers: this.db.table('segment_members'),
      tryTimestamp: this.db.table('try_timestamptz'),
    };
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

  /** One query: how many contacts of the project match. */
  async count(projectId: string, audience: Audience): Promise<number> {
    const row = await this.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.db.table('contacts')} c WHERE c.project_id = $1 AND ${audience.sql}`, [projectId, ...audience.params]);
    return row!.n;
  }

  async saveCount(id: string, count: number): Promise<SegmentRow | null> {
    return this.db.one<SegmentRow>(`UPDATE ${this.table} SET member_count = $2, counted_at = now() WHERE id = $1 RETURNING *`, [id, count]);
  }

  /** A page of matching contacts, newest first. */
  page(projectId: string, audience: Audience, limit: number, offset: number): Promise<ContactRow[]> {
    return this.db.rows<ContactRow>(
      `SELECT c.* FROM ${this.db.table('contacts')} c WHERE c.project_id = $1 AND ${audience.sql} ORDER BY c.created_at DESC, c.id DESC LIMIT ${limit} OFFSET ${offset}`,
      [projectId, ...audience.params],
    );
  }

  /** Matching contacts after `afterId` in id order (campaign fan-out). */
  recipients(projectId: string, audience: Audience, afterId: string | null, limit: number, subscribedOnly: boolean): Promise<ContactRow[]> {
    const n = audience.params.length + 2;
    return this.db.rows<ContactRow>(
      `SELECT c.* FROM ${this.db.table('contacts')} c WHERE c.project_id = $1 AND ${audience.sql}${subscribedOnly ? ' AND c.subscribed' : ''}
          AND ($${n}::text IS NULL OR c.id > $${n}) ORDER BY c.id LIMIT ${limit}`,
      [projectId, ...audience.params, afterId],
    );
  }

  /** STATIC members: adds contacts (re-entering exited ones); answers how many became members. */
  async addMembers(segmentId: string, contactIds: string[]): Promise<number> {
    if (!contactIds.length) return 0;
    const rows = await this.db.rows(
      `INSERT INTO ${this.tables.segmentMembers} (segment_id, contact_id) SELECT $1, unnest($2::text[])
       ON CONFLICT (segment_id, contact_id) DO UPDATE SET entered_at = now(), exited_at = NULL WHERE ${this.tables.segmentMembers}.exited_at IS NOT NULL
       RETURNING contact_id`,
      [segmentId, contactIds],
    );
    return rows.length;
  }

  async removeMembers(segmentId: string, contactIds: string[]): Promise<number> {
    if (!contactIds.length) return 0;
    return this.db.affected(`UPDATE ${this.tables.segmentMembers} SET exited_at = now() WHERE segment_id = $1 AND contact_id = ANY($2::text[]) AND exited_at IS NULL`, [segmentId, contactIds]);
  }

  /**
   * One batch of a tracked segment's recompute: the next `limit` contacts after `afterId`, members
   * entering and leaving, and their `segment.<slug>.entry|exit` events, in one statement.
   */
  async computeBatch(
    projectId: string,
    segment: { id: string; slug: string; name: string },
    audience: Audience,
    afterId: string | null,
    limit: number,
  ): Promise<{ last: string | null; added: number; removed: number }> {
    const base = audience.params.length + 2;
    const [after, segId, entryName, exitName, data] = [base, base + 1, base + 2, base + 3, base + 4].map((i) => `$${i}`);
    const members = this.tables.segmentMembers;
    const events = this.tables.events;
    const eventId = `'evt_' || substr(md5(random()::text || clock_timestamp()::text || contact_id), 1, 20)`;
    const row = await this.db.one<{ last: string | null; added: number; removed: number }>(
      `WITH batch AS (
         SELECT c.id, coalesce(${audience.sql}, false) AS m FROM ${this.db.table('contacts')} c
          WHERE c.project_id = $1 AND (${after}::text IS NULL OR c.id > ${after}) ORDER BY c.id LIMIT ${limit}),
       entered AS (
         INSERT INTO ${members} (segment_id, contact_id) SELECT ${segId}::uuid, id FROM batch WHERE m
         ON CONFLICT (segment_id, contact_id) DO UPDATE SET entered_at = now(), exited_at = NULL WHERE ${members}.exited_at IS NOT NULL
         RETURNING contact_id),
       exited AS (
         UPDATE ${members} sm SET exited_at = now() FROM batch b
          WHERE sm.segment_id = ${segId}::uuid AND sm.contact_id = b.id AND NOT b.m AND sm.exited_at IS NULL RETURNING sm.contact_id),
       ev AS (
         INSERT INTO ${events} (id, project_id, contact_id, name, data)
         SELECT ${eventId}, $1, contact_id, ${entryName}, ${data}::jsonb FROM entered
         UNION ALL
         SELECT ${eventId}, $1, contact_id, ${exitName}, ${data}::jsonb FROM exited
         RETURNING 1)
       SELECT (SELECT max(id) FROM batch) AS last, (SELECT count(*)::int FROM entered) AS added, (SELECT count(*)::int FROM exited) AS removed, (SELECT count(*) FROM ev) AS events`,
      [projectId, ...audience.params, afterId, segment.id, `segment.${segment.slug}.entry`, `segment.${segment.slug}.exit`, JSON.stringify({ segmentId: segment.id, segmentName: segment.name })],
    );
    return { last: row!.last, added: row!.added, removed: row!.removed };
  }
}
