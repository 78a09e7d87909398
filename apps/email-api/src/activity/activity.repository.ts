import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { Keyset } from '../common/pagination';

export interface ActivityItem {
  id: string;
  /** `event` (a tracked event) or `email.<status>` (queued, sent, failed, suppressed, stored). */
  type: string;
  /** Event name, or the email subject. */
  title: string;
  contactId: string | null;
  email: string | null;
  data: Record<string, unknown> | null;
  createdAt: Date;
}

interface Row {
  id: string;
  type: string;
  title: string;
  contact_id: string | null;
  email: string | null;
  data: Record<string, unknown> | null;
  created_at: Date;
}

/**
 * The activity feed: tracked events and emails of a project, merged newest first. Parts 2 and 3
 * add opens, clicks, bounces and complaints (as email statuses and events) and workflow steps.
 */
@Injectable()
export class ActivityRepository {
  constructor(private readonly db: Database) {}

  private feed(): string {
    return `(
      SELECT e.id, 'event' AS type, e.name AS title, e.contact_id, c.email, e.data, e.created_at, e.project_id
        FROM ${this.db.table('events')} e LEFT JOIN ${this.db.table('contacts')} c ON c.id = e.contact_id
      UNION ALL
      SELECT m.id, 'email.' || lower(m.status), m.subject, m.contact_id,
             -- to_email may carry a display name ("Ada" <ada@example.com>): the feed shows the address
             coalesce(substring(m.to_email from '<([^<>]+)>$'), m.to_email),
             jsonb_build_object('status', m.status, 'statusReason', m.status_reason, 'kind', m.kind, 'source', m.source, 'from', m.from_email, 'sentAt', m.sent_at, 'messageId', m.message_id),
             m.created_at, m.project_id
        FROM ${this.db.table('emails')} m
    ) a`;
  }

  async page(projectId: string, limit: number, after: Keyset | null, filter: { type?: string; contactId?: string }): Promise<ActivityItem[]> {
    const params: unknown[] = [projectId];
    const where = ['a.project_id = $1'];
    if (filter.type) {
      params.push(filter.type);
      where.push(`a.type = $${params.length}`);
    }
    if (filter.contactId) {
      params.push(filter.contactId);
      where.push(`a.contact_id = $${params.length}`);
    }
    if (after) {
      params.push(after.createdAt, after.id);
      where.push(`(a.created_at, a.id) < ($${params.length - 1}, $${params.length})`);
    }
    params.push(limit + 1);
    const rows = await this.db.rows<Row>(`SELECT * FROM ${this.feed()} WHERE ${where.join(' AND ')} ORDER BY a.created_at DESC, a.id DESC LIMIT $${params.length}`, params);
    return rows.map((r) => ({ id: r.id, type: r.type, title: r.title, contactId: r.contact_id, email: r.email, data: r.data, createdAt: r.created_at }));
  }

  async count(projectId: string, filter: { type?: string; contactId?: string; since?: Date }): Promise<number> {
    const params: unknown[] = [projectId];
    const where = ['a.project_id = $1'];
    if (filter.type) {
      params.push(filter.type);
      where.push(`a.type = $${params.length}`);
    }
    if (filter.contactId) {
      params.push(filter.contactId);
      where.push(`a.contact_id = $${params.length}`);
    }
    if (filter.since) {
      params.push(filter.since);
      where.push(`a.created_at >= $${params.length}`);
    }
    const row = await this.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.feed()} WHERE ${where.join(' AND ')}`, params);
    return row?.n ?? 0;
  }

  async countsByType(projectId: string, since: Date): Promise<Record<string, number>> {
    const rows = await this.db.rows<{ type: string; n: number }>(
      `SELECT a.type, count(*)::int AS n FROM ${this.feed()} WHERE a.project_id = $1 AND a.created_at >= $2 GROUP BY a.type ORDER BY a.type`,
      [projectId, since],
    );
    return Object.fromEntries(rows.map((r) => [r.type, r.n]));
  }

  async types(projectId: string): Promise<string[]> {
    const rows = await this.db.rows<{ type: string }>(`SELECT DISTINCT a.type FROM ${this.feed()} WHERE a.project_id = $1 ORDER BY a.type`, [projectId]);
    return rows.map((r) => r.type);
  }
}
