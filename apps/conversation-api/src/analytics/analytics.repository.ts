import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';

/** Which events a report counts: an account, a period and the filters. */
export interface ReportFilters {
  accountId: string;
  from: Date;
  to: Date;
  /** The channels the caller sees (undefined: every channel of the account). */
  channelIds?: string[];
  channelId?: string;
  teamId?: string;
  agentId?: string;
  label?: string;
}

export interface PeriodFigures {
  conversations: number;
  resolved: number;
  messagesIncoming: number;
  messagesOutgoing: number;
  firstResponses: number;
  firstResponseTime: number | null;
  resolutionTime: number | null;
  replies: number;
  replyTime: number | null;
}

export interface CurrentFigures {
  open: number;
  unassigned: number;
  pending: number;
  snoozed: number;
}

export interface PerformanceRow extends PeriodFigures {
  id: string;
  name: string;
  /** Open conversations assigned now (agents) or of the team now (teams). */
  openNow: number;
}

/** Time-series metrics (Chatwoot's report names) and how each is computed from the events. */
export const SERIES_METRICS = {
  conversations_count: { event: 'conversation_created', agg: 'count' },
  incoming_messages_count: { event: 'message_incoming', agg: 'count' },
  outgoing_messages_count: { event: 'message_outgoing', agg: 'count' },
  resolutions_count: { event: 'conversation_resolved', agg: 'count' },
  avg_first_response_time: { event: 'first_response', agg: 'avg' },
  avg_resolution_time: { event: 'conversation_resolved', agg: 'avg' },
  avg_reply_time: { event: 'reply_time', agg: 'avg' },
} as const;
export type SeriesMetric = keyof typeof SERIES_METRICS;

interface FiguresRow {
  conversations: number;
  resolved: number;
  messages_incoming: number;
  messages_outgoing: number;
  first_responses: number;
  first_response_time: number | null;
  resolution_time: number | null;
  replies: number;
  reply_time: number | null;
}

const FIGURES = `
  count(*) FILTER (WHERE e.name = 'conversation_created')::int AS conversations,
  count(*) FILTER (WHERE e.name = 'conversation_resolved')::int AS resolved,
  count(*) FILTER (WHERE e.name = 'message_incoming')::int AS messages_incoming,
  count(*) FILTER (WHERE e.name = 'message_outgoing')::int AS messages_outgoing,
  count(*) FILTER (WHERE e.name = 'first_response')::int AS first_responses,
  avg(e.value) FILTER (WHERE e.name = 'first_response') AS first_response_time,
  avg(e.value) FILTER (WHERE e.name = 'conversation_resolved') AS resolution_time,
  count(*) FILTER (WHERE e.name = 'reply_time')::int AS replies,
  avg(e.value) FILTER (WHERE e.name = 'reply_time') AS reply_time`;

const num = (v: number | string | null): number | null => (v === null ? null : Number(v));

const toFigures = (r: FiguresRow | null): PeriodFigures => ({
  conversations: r?.conversations ?? 0,
  resolved: r?.resolved ?? 0,
  messagesIncoming: r?.messages_incoming ?? 0,
  messagesOutgoing: r?.messages_outgoing ?? 0,
  firstResponses: r?.first_responses ?? 0,
  firstResponseTime: num(r?.first_response_time ?? null),
  resolutionTime: num(r?.resolution_time ?? null),
  replies: r?.replies ?? 0,
  replyTime: num(r?.reply_time ?? null),
});

/** Reports over `reporting_events` (written by triggers when conversations and messages change; see the migration). */
@Injectable()
export class AnalyticsRepository {
  constructor(private readonly db: Database) {}

  private get events(): string {
    return this.db.table('reporting_events');
  }

  /** The conditions on events `e` for the filters (account, period, scope, channel, team, agent, label), with their parameters. */
  private eventWhere(f: ReportFilters, params: unknown[], opts: { agent?: boolean; team?: boolean } = {}): string {
    const add = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    const where = [`e.account_id = ${add(f.accountId)}`, `e.occurred_at >= ${add(f.from)}`, `e.occurred_at < ${add(f.to)}`];
    if (f.channelIds) where.push(`e.channel_id = ANY(${add(f.channelIds)}::uuid[])`);
    if (f.channelId) where.push(`e.channel_id = ${add(f.channelId)}`);
    if (f.teamId && opts.team !== false) where.push(`e.team_id = ${add(f.teamId)}`);
    if (f.agentId && opts.agent !== false) where.push(`e.user_id = ${add(f.agentId)}`);
    if (f.label) where.push(`e.conversation_id IN (SELECT id FROM ${this.db.table('conversations')} WHERE account_id = e.account_id AND ${add(f.label)} = ANY(labels))`);
    return where.join(' AND ');
  }

  /** Counts and average times of the period. */
  async figures(f: ReportFilters): Promise<PeriodFigures> {
    const params: unknown[] = [];
    const row = await this.db.one<FiguresRow>(`SELECT ${FIGURES} FROM ${this.events} e WHERE ${this.eventWhere(f, params)}`, params);
    return toFigures(row);
  }

  /** Conversations open, open and unassigned, pending and snoozed now (the same filters but the period; team and agent as they are now). */
  async current(f: Omit<ReportFilters, 'from' | 'to'>): Promise<CurrentFigures> {
    const params: unknown[] = [f.accountId];
    const where = ['v.account_id = $1'];
    const add = (sql: (n: string) => string, value: unknown) => {
      params.push(value);
      where.push(sql(`$${params.length}`));
    };
    if (f.channelIds) add((n) => `v.channel_id = ANY(${n}::uuid[])`, f.channelIds);
    if (f.channelId) add((n) => `v.channel_id = ${n}`, f.channelId);
    if (f.teamId) add((n) => `v.team_id = ${n}`, f.teamId);
    if (f.agentId) add((n) => `v.assignee_id = ${n}`, f.agentId);
    if (f.label) add((n) => `${n} = ANY(v.labels)`, f.label);
    const row = await this.db.one<CurrentFigures>(
      `SELECT count(*) FILTER (WHERE v.status = 'open')::int AS open,
              count(*) FILTER (WHERE v.status = 'open' AND v.assignee_id IS NULL)::int AS unassigned,
              count(*) FILTER (WHERE v.status = 'pending')::int AS pending,
              count(*) FILTER (WHERE v.status = 'snoozed')::int AS snoozed
         FROM ${this.db.table('conversations')} v WHERE ${where.join(' AND ')}`,
      params,
    );
    return row ?? { open: 0, unassigned: 0, pending: 0, snoozed: 0 };
  }

  /**
   * One value per hour or day of the period in the time zone `timeZone` (local buckets: a day is the
   * local calendar day, 23 or 25 hours long across a daylight-saving change); buckets without events
   * give 0 (counts) or null (averages). Bucket starts are returned as instants.
   */
  async series(f: ReportFilters, metric: SeriesMetric, groupBy: 'hour' | 'day', timeZone: string): Promise<Array<{ start: Date; value: number | null; count: number }>> {
    const { event, agg } = SERIES_METRICS[metric];
    const params: unknown[] = [];
    const where = this.eventWhere(f, params);
    params.push(groupBy, timeZone, event);
    const [g, tz, name] = [`$${params.length - 2}`, `$${params.length - 1}`, `$${params.length}`];
    const rows = await this.db.rows<{ start: Date; value: number | string | null; count: number }>(
      `WITH buckets AS (
         SELECT generate_series(date_trunc(${g}::text, $2::timestamptz AT TIME ZONE ${tz}::text),
                                date_trunc(${g}::text, ($3::timestamptz - interval '1 microsecond') AT TIME ZONE ${tz}::text),
                                ('1 ' || ${g}::text)::interval) AS local),
       hits AS (
         SELECT date_trunc(${g}::text, e.occurred_at AT TIME ZONE ${tz}::text) AS local, count(*)::int AS count, avg(e.value) AS average
           FROM ${this.events} e WHERE ${where} AND e.name = ${name} GROUP BY 1)
       SELECT b.local AT TIME ZONE ${tz}::text AS start, coalesce(h.count, 0) AS count, ${agg === 'count' ? 'coalesce(h.count, 0)' : 'h.average'} AS value
         FROM buckets b LEFT JOIN hits h ON h.local = b.local ORDER BY b.local`,
      params,
    );
    return rows.map((r) => ({ start: r.start, value: num(r.value), count: r.count }));
  }

  /** The figures of the period per agent (events attributed to the user) of the account, with their open conversations now. */
  async agents(f: ReportFilters): Promise<PerformanceRow[]> {
    const params: unknown[] = [];
    const where = this.eventWhere(f, params, { agent: false });
    params.push(f.agentId ?? null);
    const agent = `$${params.length}`;
    const rows = await this.db.rows<FiguresRow & { id: string; name: string; open_now: number }>(
      `SELECT u.id, u.name, ${FIGURES},
              (SELECT count(*)::int FROM ${this.db.table('conversations')} v WHERE v.assignee_id = u.id AND v.status = 'open') AS open_now
         FROM ${this.db.table('users')} u LEFT JOIN ${this.events} e ON e.user_id = u.id AND ${where}
        WHERE u.account_id = $1 AND (${agent}::uuid IS NULL OR u.id = ${agent}::uuid)
        GROUP BY u.id ORDER BY u.name, u.id`,
      params,
    );
    return rows.map((r) => ({ id: r.id, name: r.name, openNow: r.open_now, ...toFigures(r) }));
  }

  /** The figures of the period per team (events of conversations of the team at the time), with its open conversations now. */
  async teams(f: ReportFilters): Promise<PerformanceRow[]> {
    const params: unknown[] = [];
    const where = this.eventWhere(f, params, { team: false });
    params.push(f.teamId ?? null);
    const team = `$${params.length}`;
    const rows = await this.db.rows<FiguresRow & { id: string; name: string; open_now: number }>(
      `SELECT t.id, t.name, ${FIGURES},
              (SELECT count(*)::int FROM ${this.db.table('conversations')} v WHERE v.team_id = t.id AND v.status = 'open') AS open_now
         FROM ${this.db.table('teams')} t LEFT JOIN ${this.events} e ON e.team_id = t.id AND ${where}
        WHERE t.account_id = $1 AND (${team}::uuid IS NULL OR t.id = ${team}::uuid)
        GROUP BY t.id ORDER BY t.name, t.id`,
      params,
    );
    return rows.map((r) => ({ id: r.id, name: r.name, openNow: r.open_now, ...toFigures(r) }));
  }
}
