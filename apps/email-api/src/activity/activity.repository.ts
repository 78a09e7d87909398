import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { Keyset } from '../common/pagination';

export interface ActivityItem {
  id: string;
  /** `event` (a tracked event), `email.<status>` (an email: queued, sent, failed…) or `email.<what happened>` (a mail event: opened, clicked, bounced…). */
  type: string;
  /** Event name, or the email subject. */
  title: string;
  contactId: string | null;
  email: string | null;
  emailId: string | null;
  campaignId: string | null;
  data: Record<string, unknown> | null;
  createdAt: Date;
}

export interface ActivityFilter {
  type?: string;
  contactId?: string;
  emailId?: string;
  campaignId?: string;
  since?: Date;
  until?: Date;
}

interface Row {
  id: string;
  type: string;
  title: string;
  contact_id: string | null;
  email: string | null;
  email_id: string | null;
  campaign_id: string | null;
  data: Record<string, unknown> | null;
  created_at: Date;
}

/** Activity type of each mail event type (`send` is the email's own `email.sent` item, not repeated). */
export const MAIL_EVENT_ACTIVITY: Record<string, string> = {
  delivery: 'email.delivered',
  open: 'email.opened',
  click: 'email.clicked',
  bounce: 'email.bounced',
  complaint: 'email.complained',
  unsubscribe: 'email.unsubscribed',
  received: 'email.received',
};

export interface UpcomingItem {
  type: 'campaign';
  id: string;
  name: string;
  subject: string;
  scheduledFor: Date;
  audienceType: string;
}

/**
 * The activity feed: tracked events, emails and mail events (deliveries, opens, clicks, bounces,
 * complaints, unsubscribes, inbound mail) of a project, merged newest first; each branch is read
 * through its `(project_id, created_at DESC, id DESC)` index.
 */
@Injectable()
export class ActivityRepository {
  constructor(private readonly db: Database) {}

  private feed(): string {
    const s = this.db.schema;
    const types = Object.entries(MAIL_EVENT_ACTIVITY).map(([k, v]) => `WHEN '${k}' THEN '${v}'`).join(' ');
    return `(
      SELECT e.id, 'event' AS type, e.name AS title, e.contact_id, c.email, NULL::text AS email_id, NULL::uuid AS campaign_id, e.data, e.created_at, e.project_id
        FROM ${s}.events e LEFT JOIN ${s}.contacts c ON c.id = e.contact_id
      UNION ALL
      SELECT m.id, 'email.' || lower(m.status), m.subject, m.contact_id,
             -- to_email may carry a display name ("Ada" <ada@example.com>): the feed shows the address
             coalesce(substring(m.to_email from '<([^<>]+)>$'), m.to_email), m.id, m.campaign_id,
             jsonb_build_object('status', m.status, 'statusReason', m.status_reason, 'kind', m.kind, 'source', m.source, 'from', m.from_email, 'sentAt', m.sent_at, 'messageId', m.message_id),
             m.created_at, m.project_id
        FROM ${s}.emails m
      UNION ALL
      SELECT v.id, CASE v.type ${types} END, coalesce(vm.subject, v.data->>'subject', v.type), v.contact_id, v.recipient, v.email_id, v.campaign_id,
             jsonb_strip_nulls(jsonb_build_object('source', v.source, 'bounceType', v.bounce_type, 'url', v.url, 'flag', v.flag, 'human', v.flag IS NULL)) || coalesce(v.data, '{}'::jsonb),
             v.created_at, v.project_id
        FROM ${s}.mail_events v LEFT JOIN ${s}.emails vm ON vm.id = v.email_id
       WHERE v.type <> 'send'
    ) a`;
  }

  private where(projectId: string, filter: ActivityFilter, params: unknown[]): string[] {
    params.push(projectId);
    const where = ['a.project_id = $1'];
    const add = (column: string, op: string, value: unknown) => {
      params.push(value);
      where.push(`${column} ${op} $${params.length}`);
    };
    if (filter.type) add('a.type', '=', filter.type);
    if (filter.contactId) add('a.contact_id', '=', filter.contactId);
    if (filter.emailId) add('a.email_id', '=', filter.emailId);
    if (filter.campaignId) add('a.campaign_id', '=', filter.campaignId);
    if (filter.since) add('a.created_at', '>=', filter.since);
    if (filter.until) add('a.created_at', '<', filter.until);
    return where;
  }

  async page(projectId: string, limit: number, after: Keyset | null, filter: ActivityFilter): Promise<ActivityItem[]> {
    const params: unknown[] = [];
    const where = this.where(projectId, filter, params);
    if (after) {
      params.push(after.createdAt, after.id);
      where.push(`(a.created_at, a.id) < ($${params.length - 1}, $${params.length})`);
    }
    params.push(limit + 1);
    const rows = await this.db.rows<Row>(`SELECT * FROM ${this.feed()} WHERE ${where.join(' AND ')} ORDER BY a.created_at DESC, a.id DESC LIMIT $${params.length}`, params);
    return rows.map((r) => ({
      id: r.id,
      type: r.type,
      title: r.title,
      contactId: r.contact_id,
      email: r.email,
      emailId: r.email_id,
      campaignId: r.campaign_id,
      data: r.data,
      createdAt: r.created_at,
    }));
  }

  async count(projectId: string, filter: ActivityFilter): Promise<number> {
    const params: unknown[] = [];
    const where = this.where(projectId, filter, params);
    const row = await this.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.feed()} WHERE ${where.join(' AND ')}`, params);
    return row?.n ?? 0;
  }

  /** SCHEDULED campaigns of the project, soonest first. */
  async upcoming(projectId: string, limit: number): Promise<UpcomingItem[]> {
    const rows = await this.db.rows<{ id: string; name: string; subject: string; scheduled_for: Date; audience_type: string }>(
      `SELECT id, name, subject, scheduled_for, audience_type FROM ${this.db.table('campaigns')} WHERE project_id = $1 AND status = 'SCHEDULED' ORDER BY scheduled_for, id LIMIT $2`,
      [projectId, limit],
    );
    return rows.map((r) => ({ type: 'campaign', id: r.id, name: r.name, subject: r.subject, scheduledFor: r.scheduled_for, audienceType: r.audience_type }));
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
