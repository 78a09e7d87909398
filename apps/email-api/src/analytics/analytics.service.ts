import { Injectable } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { AnalyticsRepository, type CampaignTotalsRow } from './analytics.repository';

const DAY = 24 * 60 * 60 * 1000;
/** Most buckets one time series answers (a month of hours, two years of days). */
export const MAX_BUCKETS = { hour: 31 * 24 + 1, day: 732 } as const;

export interface TimeseriesPoint {
  /** Start of the bucket in the zone's local time, `YYYY-MM-DDTHH:MM:SS`. */
  local: string;
  /** The same instant in UTC. */
  start: Date;
  sent: number;
  delivered: number;
  opened: number;
  clicked: number;
  bounced: number;
  complained: number;
  unsubscribed: number;
  received: number;
  /** Opens and clicks left out of the human figures (privacy proxies, scanners). */
  flaggedOpens: number;
  flaggedClicks: number;
}

const COUNTED = ['sent', 'delivered', 'opened', 'clicked', 'bounced', 'complained', 'unsubscribed', 'received', 'flaggedOpens', 'flaggedClicks'] as const;

/** Whether the IANA zone is known (Node's ICU has the same database PostgreSQL uses for `AT TIME ZONE`). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return /^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(zone);
  } catch {
    return false;
  }
}

const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 10_000) / 10_000 : 0);

function withRates(r: Omit<CampaignTotalsRow, 'campaigns'>) {
  return {
    ...r,
    openRate: ratio(r.opened, r.delivered),
    clickRate: ratio(r.clicked, r.delivered),
    clicksPerOpen: ratio(r.clicked, r.opened),
    bounceRate: ratio(r.bounced, r.sent),
    complaintRate: ratio(r.complained, r.sent),
  };
}

@Injectable()
export class AnalyticsService {
  constructor(private readonly analytics: AnalyticsRepository) {}

  /**
   * Counts of mail events per hour or day of `timeZone` over [from, to) (default: the last 30 days
   * by day, the last 48 hours by hour). Opens and clicks are the human ones (flagged ones apart).
   */
  async timeseries(projectId: string, q: { interval?: 'hour' | 'day'; timeZone?: string; from?: Date; to?: Date }) {
    const interval = q.interval ?? 'day';
    const timeZone = q.timeZone ?? 'UTC';
    if (!isTimeZone(timeZone)) {
      throw new ApiError(422, 'VALIDATION_ERROR', 'Validation failed', {
        errors: [{ field: 'timeZone', message: 'timeZone must be an IANA time zone such as Europe/Berlin', code: 'invalid_time_zone' }],
        suggestion: 'Pass an IANA zone name (Area/Location), or leave it out for UTC.',
      });
    }
    const to = q.to ?? new Date();
    const from = q.from ?? new Date(to.getTime() - (interval === 'hour' ? 2 : 30) * DAY);
    const span = (to.getTime() - from.getTime()) / (interval === 'hour' ? 3_600_000 : DAY);
    if (!(span > 0) || span > MAX_BUCKETS[interval]) {
      throw new ApiError(422, 'VALIDATION_ERROR', 'Validation failed', {
        errors: [{ field: 'from', message: `from must be before to, at most ${MAX_BUCKETS[interval]} ${interval}s apart`, code: 'invalid_range' }],
        suggestion: interval === 'hour' ? 'Ask by day for long periods.' : 'Ask for a shorter period.',
      });
    }
    const rows = await this.analytics.series(projectId, interval, timeZone, from, to);
    const points: TimeseriesPoint[] = rows.map((r) => ({
      local: r.local,
      start: r.start,
      sent: r.sent,
      delivered: r.delivered,
      opened: r.opened,
      clicked: r.clicked,
      bounced: r.bounced,
      complained: r.complained,
      unsubscribed: r.unsubscribed,
      received: r.received,
      flaggedOpens: r.opened_flagged,
      flaggedClicks: r.clicked_flagged,
    }));
    const totals = points.reduce<Record<string, number>>((t, p) => {
      for (const k of COUNTED) t[k] = (t[k] ?? 0) + p[k];
      return t;
    }, {});
    return { interval, timeZone, from, to, totals, points };
  }

  async topCampaigns(projectId: string, q: { since?: Date; limit?: number }) {
    const rows = await this.analytics.topCampaigns(projectId, q.since ?? new Date(Date.now() - 90 * DAY), q.limit ?? 10);
    return rows.map(({ id, name, status, started_at, ...counts }) => ({ id, name, status, startedAt: started_at, ...withRates(counts) }));
  }

  async campaignStats(projectId: string, q: { since?: Date }) {
    const since = q.since ?? new Date(Date.now() - 30 * DAY);
    const { campaigns, ...counts } = await this.analytics.campaignTotals(projectId, since);
    return { since, campaigns, ...withRates(counts) };
  }

  async topEvents(projectId: string, q: { since?: Date; limit?: number }) {
    const rows = await this.analytics.topEvents(projectId, q.since ?? new Date(Date.now() - 30 * DAY), q.limit ?? 10);
    return rows.map((r) => ({ name: r.name, count: r.count, contacts: r.contacts, lastAt: r.last_at }));
  }
}
