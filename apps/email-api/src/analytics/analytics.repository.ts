import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';

export interface SeriesRow {
  local: string;
  start: Date;
  sent: number;
  delivered: number;
  opened: number;
  opened_flagged: number;
  clicked: number;
  clicked_flagged: number;
  bounced: number;
  complained: number;
  unsubscribed: number;
  received: number;
}

export interface CampaignRankRow {
  id: string;
  name: string;
  status: string;
  started_at: Date | null;
  sent: number;
  delivered: number;
  opened: number;
  clicked: number;
  bounced: number;
  complained: number;
}

export interface CampaignTotalsRow {
  campaigns: number;
  sent: number;
  delivered: number;
  opened: number;
  clicked: number;
  bounced: number;
  complained: number;
}

/**
 * Analytics over indexed columns and the quarter-hour rollups of the mail events. The time series
 * reads `mail_event_rollups` (one row per quarter hour: 2,880 rows a month whatever the volume) and groups the
 * quarter hours into the hours or days of the requested zone in PostgreSQL (`AT TIME ZONE`, the
 * IANA database): every zone's offset is a multiple of 15 minutes, so no bucket straddles two.
 */
@Injectable()
export class AnalyticsRepository {
  constructor(private readonly db: Database) {}

  /** Every bucket of the zone that [from, to) touches (empty ones too, each counted whole), with its counts. */
  async series(projectId: string, unit: 'hour' | 'day', timeZone: string, from: Date, to: Date): Promise<SeriesRow[]> {
    return this.db.rows<SeriesRow>(
      `WITH bounds AS (
         SELECT date_trunc($2, $4::timestamptz AT TIME ZONE $3) AS lo, date_trunc($2, ($5::timestamptz - interval '1 microsecond') AT TIME ZONE $3) AS hi
       ),
       buckets AS (
         SELECT g AS local FROM bounds, generate_series(bounds.lo, bounds.hi, ('1 ' || $2)::interval) g
       ),
       counts AS (
         SELECT date_trunc($2, r.bucket AT TIME ZONE $3) AS local,
                sum(r.sent)::int AS sent,
                sum(r.delivered)::int AS delivered,
                sum(r.opened)::int AS opened,
                sum(r.opened_flagged)::int AS opened_flagged,
                sum(r.clicked)::int AS clicked,
                sum(r.clicked_flagged)::int AS clicked_flagged,
                sum(r.bounced)::int AS bounced,
                sum(r.complained)::int AS complained,
                sum(r.unsubscribed)::int AS unsubscribed,
                sum(r.received)::int AS received
           FROM ${this.db.table('mail_event_rollups')} r, bounds
          WHERE r.project_id = $1 AND r.bucket >= (bounds.lo AT TIME ZONE $3) AND r.bucket < ((bounds.hi + ('1 ' || $2)::interval) AT TIME ZONE $3)
          GROUP BY 1
       )
       SELECT to_char(b.local, 'YYYY-MM-DD"T"HH24:MI:SS') AS local, b.local AT TIME ZONE $3 AS start,
              coalesce(c.sent, 0) AS sent, coalesce(c.delivered, 0) AS delivered, coalesce(c.opened, 0) AS opened, coalesce(c.opened_flagged, 0) AS opened_flagged, coalesce(c.clicked, 0) AS clicked, coalesce(c.clicked_flagged, 0) AS clicked_flagged, coalesce(c.bounced, 0) AS bounced, coalesce(c.complained, 0) AS complained, coalesce(c.unsubscribed, 0) AS unsubscribed, coalesce(c.received, 0) AS received
         FROM buckets b LEFT JOIN counts c ON c.local = b.local
        ORDER BY b.local`,
      [projectId, unit, timeZone, from, to],
    );
  }

  /** Campaigns started since `since`, ranked by mails opened by a person, then clicked. */
  async topCampaigns(projectId: string, since: Date, limit: number): Promise<CampaignRankRow[]> {
    return this.db.rows<CampaignRankRow>(
      `SELECT c.id, c.name, c.status, c.started_at,
              count(e.sent_at)::int AS sent,
              count(*) FILTER (WHERE e.sent_at IS NOT NULL AND e.bounced_at IS NULL)::int AS delivered,
              count(e.opened_at)::int AS opened, count(e.clicked_at)::int AS clicked,
              count(e.bounced_at)::int AS bounced, count(e.complained_at)::int AS complained
         FROM ${this.db.table('campaigns')} c JOIN ${this.db.table('emails')} e ON e.campaign_id = c.id
        WHERE c.project_id = $1 AND c.started_at >= $2
        GROUP BY c.id
        ORDER BY opened DESC, clicked DESC, c.started_at DESC, c.id
        LIMIT $3`,
      [projectId, since, limit],
    );
  }

  /** Totals of every campaign mail written since `since`. */
  async campaignTotals(projectId: string, since: Date): Promise<CampaignTotalsRow> {
    const row = await this.db.one<CampaignTotalsRow>(
      `SELECT count(DISTINCT e.campaign_id)::int AS campaigns,
              count(e.sent_at)::int AS sent,
              count(*) FILTER (WHERE e.sent_at IS NOT NULL AND e.bounced_at IS NULL)::int AS delivered,
              count(e.opened_at)::int AS opened, count(e.clicked_at)::int AS clicked,
              count(e.bounced_at)::int AS bounced, count(e.complained_at)::int AS complained
         FROM ${this.db.table('emails')} e
        WHERE e.project_id = $1 AND e.created_at >= $2 AND e.campaign_id IS NOT NULL`,
      [projectId, since],
    );
    return row!;
  }

  /** The most tracked event names since `since`, with how many contacts tracked each. */
  async topEvents(projectId: string, since: Date, limit: number): Promise<Array<{ name: string; count: number; contacts: number; last_at: Date }>> {
    return this.db.rows(
      `SELECT name, count(*)::int AS count, count(DISTINCT contact_id)::int AS contacts, max(created_at) AS last_at
         FROM ${this.db.table('events')} WHERE project_id = $1 AND created_at >= $2
        GROUP BY name ORDER BY count DESC, name LIMIT $3`,
      [projectId, since, limit],
    );
  }
}
