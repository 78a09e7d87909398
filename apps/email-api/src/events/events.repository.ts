import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import { newId } from '../common/ids';
import type { Keyset } from '../common/pagination';
import { toEvent, type EventRow, type TrackedEvent } from './event';

@Injectable()
export class EventsRepository {
  constructor(private readonly db: Database) {}

  private get table(): string {
    return this.db.table('events');
  }

  async insert(projectId: string, contactId: string | null, name: string, data: Record<string, unknown> | null): Promise<TrackedEvent> {
    const row = await this.db.one<EventRow>(
      `INSERT INTO ${this.table} (id, project_id, contact_id, name, data) VALUES ($1, $2, $3, $4, $5::jsonb) RETURNING *`,
      [newId('evt'), projectId, contactId, name, data && Object.keys(data).length ? JSON.stringify(data) : null],
    );
    return toEvent(row!);
  }

  /** `limit + 1` events after the keyset, newest first, with the contact's email. */
  async page(projectId: string, limit: number, after: Keyset | null, filter: { name?: string; contactId?: string } = {}): Promise<Array<TrackedEvent & { email?: string | null }>> {
    const params: unknown[] = [projectId];
    const where = ['e.project_id = $1'];
    if (filter.name) {
      params.push(filter.name);
      where.push(`e.name = $${params.length}`);
    }
    if (filter.contactId) {
      params.push(filter.contactId);
      where.push(`e.contact_id = $${params.length}`);
    }
    if (after) {
      params.push(after.createdAt, after.id);
      where.push(`(e.created_at, e.id) < ($${params.length - 1}, $${params.length})`);
    }
    params.push(limit + 1);
    const rows = await this.db.rows<EventRow>(
      `SELECT e.*, c.email FROM ${this.table} e LEFT JOIN ${this.db.table('contacts')} c ON c.id = e.contact_id
        WHERE ${where.join(' AND ')} ORDER BY e.created_at DESC, e.id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map(toEvent);
  }

  async count(projectId: string, filter: { name?: string; contactId?: string } = {}): Promise<number> {
    const params: unknown[] = [projectId];
    const where = ['project_id = $1'];
    if (filter.name) {
      params.push(filter.name);
      where.push(`name = $${params.length}`);
    }
    if (filter.contactId) {
      params.push(filter.contactId);
      where.push(`contact_id = $${params.length}`);
    }
    const row = await this.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.table} WHERE ${where.join(' AND ')}`, params);
    return row?.n ?? 0;
  }

  /** Distinct names with their counts and first and last occurrence, most used first. */
  async names(projectId: string): Promise<Array<{ name: string; count: number; firstSeen: Date; lastSeen: Date }>> {
    return this.db.rows(
      `SELECT name, count(*)::int AS count, min(created_at) AS "firstSeen", max(created_at) AS "lastSeen"
         FROM ${this.table} WHERE project_id = $1 GROUP BY name ORDER BY count(*) DESC, name ASC`,
      [projectId],
    );
  }

  async stats(projectId: string): Promise<{ total: number; uniqueNames: number; uniqueContacts: number; last24h: number; last7d: number; last30d: number }> {
    const row = await this.db.one<{ total: number; uniqueNames: number; uniqueContacts: number; last24h: number; last7d: number; last30d: number }>(
      `SELECT count(*)::int AS total,
              count(DISTINCT name)::int AS "uniqueNames",
              count(DISTINCT contact_id)::int AS "uniqueContacts",
              (count(*) FILTER (WHERE created_at > now() - interval '24 hours'))::int AS "last24h",
              (count(*) FILTER (WHERE created_at > now() - interval '7 days'))::int AS "last7d",
              (count(*) FILTER (WHERE created_at > now() - interval '30 days'))::int AS "last30d"
         FROM ${this.table} WHERE project_id = $1`,
      [projectId],
    );
    return row!;
  }

  async usage(projectId: string, name: string): Promise<{ count: number; contacts: number; firstSeen: Date | null; lastSeen: Date | null }> {
    const row = await this.db.one<{ count: number; contacts: number; firstSeen: Date | null; lastSeen: Date | null }>(
      `SELECT count(*)::int AS count, count(DISTINCT contact_id)::int AS contacts, min(created_at) AS "firstSeen", max(created_at) AS "lastSeen"
         FROM ${this.table} WHERE project_id = $1 AND name = $2`,
      [projectId, name],
    );
    return row!;
  }

  async deleteByName(projectId: string, name: string): Promise<number> {
    return this.db.affected(`DELETE FROM ${this.table} WHERE project_id = $1 AND name = $2`, [projectId, name]);
  }
}
