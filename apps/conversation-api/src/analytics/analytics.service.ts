import { Injectable } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { AccountsService } from '../accounts/accounts.service';
import type { Principal } from '../access/principal';
import { ChannelsService } from '../channels/channels.service';
import { AnalyticsRepository, type PerformanceRow, type PeriodFigures, type ReportFilters, type SeriesMetric } from './analytics.repository';

const DAY_MS = 24 * 3600 * 1000;
const MAX_RANGE_DAYS = 366;
const MAX_HOURLY_DAYS = 31;

export interface ReportQuery {
  from?: string;
  to?: string;
  channelId?: string;
  teamId?: string;
  agentId?: string;
  label?: string;
}

/** A figure of the period next to the previous period's; `change` in percent (null when the previous one is 0 or unknown). */
export interface Compared {
  value: number | null;
  previous: number | null;
  change: number | null;
}

export interface Summary {
  period: { from: Date; to: Date };
  previousPeriod: { from: Date; to: Date };
  now: { open: number; unassigned: number; pending: number; snoozed: number };
  metrics: Record<'conversations' | 'resolved' | 'messages_incoming' | 'messages_outgoing' | 'first_response_time' | 'resolution_time' | 'reply_time', Compared>;
}

const invalid = (field: string, message: string, code = 'invalid') => new ApiError(422, 'VALIDATION_ERROR', message, { errors: [{ field, message, code }] });

export function compare(value: number | null, previous: number | null): Compared {
  const change = value === null || previous === null || previous === 0 ? null : Math.round(((value - previous) / previous) * 10_000) / 100;
  return { value, previous, change };
}

/** Whether `tz` is an IANA time zone name this runtime knows (`Europe/Berlin`, `UTC`). */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return /^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(tz);
  } catch {
    return false;
  }
}

/** Reports from the reporting events (never recomputed from messages), for the conversations the caller sees. */
@Injectable()
export class AnalyticsService {
  constructor(
    private readonly reports: AnalyticsRepository,
    private readonly channels: ChannelsService,
    private readonly accounts: AccountsService,
  ) {}

  /** The period (default: the last 7 days up to now) and the filters, with the caller's channel scope. */
  private async filters(p: Principal, q: ReportQuery, maxDays = MAX_RANGE_DAYS): Promise<ReportFilters> {
    const to = q.to ? new Date(q.to) : new Date();
    const from = q.from ? new Date(q.from) : new Date(to.getTime() - 7 * DAY_MS);
    if (from >= to) throw invalid('from', 'from must be before to', 'range');
    if (to.getTime() - from.getTime() > maxDays * DAY_MS) throw invalid('to', `the period may span at most ${maxDays} days`, 'range');
    const scope = await this.channels.visibleChannelIds(p);
    return { accountId: p.accountId, from, to, channelIds: scope ?? undefined, channelId: q.channelId, teamId: q.teamId, agentId: q.agentId, label: q.label };
  }

  /** The KPI snapshot: the period's figures next to those of the period just before it (same length), and the conversations open, unassigned, pending and snoozed now. */
  async summary(p: Principal, q: ReportQuery): Promise<Summary> {
    const f = await this.filters(p, q);
    const length = f.to.getTime() - f.from.getTime();
    const previous = { ...f, from: new Date(f.from.getTime() - length), to: f.from };
    const [cur, prev, now] = await Promise.all([this.reports.figures(f), this.reports.figures(previous), this.reports.current(f)]);
    const pick = (k: keyof PeriodFigures) => compare(cur[k], prev[k]);
    return {
      period: { from: f.from, to: f.to },
      previousPeriod: { from: previous.from, to: previous.to },
      now,
      metrics: {
        conversations: pick('conversations'),
        resolved: pick('resolved'),
        messages_incoming: pick('messagesIncoming'),
        messages_outgoing: pick('messagesOutgoing'),
        first_response_time: pick('firstResponseTime'),
        resolution_time: pick('resolutionTime'),
        reply_time: pick('replyTime'),
      },
    };
  }

  /** One metric per hour or day of the period, bucketed in the IANA time zone `timeZone` (default: the account's). */
  async series(p: Principal, q: ReportQuery & { metric: SeriesMetric; groupBy: 'hour' | 'day'; timeZone?: string }) {
    const timeZone = q.timeZone ?? (await this.accounts.settings(p.accountId)).timeZone;
    if (!isTimeZone(timeZone)) throw invalid('timezone', `${timeZone} is not an IANA time zone (such as Europe/Berlin or UTC)`, 'time_zone');
    const f = await this.filters(p, q, q.groupBy === 'hour' ? MAX_HOURLY_DAYS : MAX_RANGE_DAYS);
    return { timeZone, period: { from: f.from, to: f.to }, points: await this.reports.series(f, q.metric, q.groupBy, timeZone) };
  }

  agents(p: Principal, q: ReportQuery): Promise<PerformanceRow[]> {
    return this.filters(p, q).then((f) => this.reports.agents(f));
  }

  teams(p: Principal, q: ReportQuery): Promise<PerformanceRow[]> {
    return this.filters(p, q).then((f) => this.reports.teams(f));
  }
}
