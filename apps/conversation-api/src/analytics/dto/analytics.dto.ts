import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDateString, IsIn, IsOptional, IsString, IsUUID, Matches, MaxLength, ValidateIf } from 'class-validator';
import type { PerformanceRow } from '../analytics.repository';
import { SERIES_METRICS, type SeriesMetric } from '../analytics.repository';
import type { Compared, Summary } from '../analytics.service';

export class ReportQueryDto {
  @ApiPropertyOptional({ format: 'date-time', description: 'Start of the period (inclusive); default: 7 days before `to`' })
  @IsOptional()
  @IsDateString({ strict: true })
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'End of the period (exclusive); default: now. At most 366 days after `from` (31 for hourly series)' })
  @IsOptional()
  @IsDateString({ strict: true })
  to?: string;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  channel_id?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'The team the conversation had when the event happened' })
  @IsOptional()
  @IsUUID()
  team_id?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'The agent of the event: the sender of a reply, the assignee of a created or resolved conversation; `me` for the caller' })
  @IsOptional()
  @ValidateIf((_o, v) => v !== 'me')
  @IsUUID()
  agent_id?: string;

  @ApiPropertyOptional({ example: 'billing', description: 'Conversations carrying this label (now)' })
  @IsOptional()
  @IsString()
  @MaxLength(50)
  label?: string;
}

export class SeriesQueryDto extends ReportQueryDto {
  @ApiProperty({ enum: Object.keys(SERIES_METRICS), description: 'Counts per bucket, or average seconds (`avg_…`; null where nothing happened)' })
  @IsIn(Object.keys(SERIES_METRICS))
  metric: SeriesMetric;

  @ApiPropertyOptional({ enum: ['hour', 'day'], default: 'day' })
  @IsOptional()
  @IsIn(['hour', 'day'])
  group_by?: 'hour' | 'day';

  @ApiPropertyOptional({ example: 'Europe/Berlin', description: 'IANA time zone of the buckets (default: the account’s time zone): days are local calendar days (23 or 25 hours across a daylight-saving change)' })
  @IsOptional()
  @Matches(/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/, { message: 'timezone must be an IANA time zone such as Europe/Berlin' })
  timezone?: string;
}

export class ComparedDto {
  @ApiProperty({ nullable: true, type: Number, description: 'This period (seconds for times)' }) value: number | null;
  @ApiProperty({ nullable: true, type: Number, description: 'The period of the same length just before' }) previous: number | null;
  @ApiProperty({ nullable: true, type: Number, description: 'Change in percent; null when the previous value is 0 or unknown' }) change: number | null;
}

const comparedView = (c: Compared): ComparedDto => ({ value: c.value === null ? null : Math.round(c.value * 1000) / 1000, previous: c.previous === null ? null : Math.round(c.previous * 1000) / 1000, change: c.change });

export class PeriodDto {
  @ApiProperty({ format: 'date-time' }) from: string;
  @ApiProperty({ format: 'date-time' }) to: string;
}

export class NowDto {
  @ApiProperty() open: number;
  @ApiProperty({ description: 'Open and without an agent' }) unassigned: number;
  @ApiProperty() pending: number;
  @ApiProperty() snoozed: number;
}

export class SummaryMetricsDto {
  @ApiProperty({ type: ComparedDto, description: 'Conversations created' }) conversations: ComparedDto;
  @ApiProperty({ type: ComparedDto, description: 'Resolutions' }) resolved: ComparedDto;
  @ApiProperty({ type: ComparedDto, description: 'Messages received from contacts' }) messages_incoming: ComparedDto;
  @ApiProperty({ type: ComparedDto, description: 'Agent replies sent' }) messages_outgoing: ComparedDto;
  @ApiProperty({ type: ComparedDto, description: 'Average seconds from a conversation’s creation to its first reply sent' }) first_response_time: ComparedDto;
  @ApiProperty({ type: ComparedDto, description: 'Average seconds from a conversation’s creation to its resolution' }) resolution_time: ComparedDto;
  @ApiProperty({ type: ComparedDto, description: 'Average seconds a contact waited for a later reply' }) reply_time: ComparedDto;
}

export class SummaryDto {
  @ApiProperty({ type: PeriodDto }) period: PeriodDto;
  @ApiProperty({ type: PeriodDto }) previous_period: PeriodDto;
  @ApiProperty({ type: NowDto, description: 'Conversations in each state now (filters apply; not per period)' }) now: NowDto;
  @ApiProperty({ type: SummaryMetricsDto }) metrics: SummaryMetricsDto;
}

const period = (p: { from: Date; to: Date }): PeriodDto => ({ from: p.from.toISOString(), to: p.to.toISOString() });

export const summaryView = (s: Summary): SummaryDto => ({
  period: period(s.period),
  previous_period: period(s.previousPeriod),
  now: s.now,
  metrics: Object.fromEntries(Object.entries(s.metrics).map(([k, v]) => [k, comparedView(v)])) as unknown as SummaryMetricsDto,
});

export class SeriesPointDto {
  @ApiProperty({ format: 'date-time', description: 'Start of the bucket (local midnight or hour in the time zone, as an instant)' }) timestamp: string;
  @ApiProperty({ nullable: true, type: Number }) value: number | null;
  @ApiProperty({ description: 'Events in the bucket (for averages: how many were averaged)' }) count: number;
}

export class SeriesDto {
  @ApiProperty() metric: string;
  @ApiProperty({ enum: ['hour', 'day'] }) group_by: string;
  @ApiProperty() timezone: string;
  @ApiProperty({ type: PeriodDto }) period: PeriodDto;
  @ApiProperty({ type: [SeriesPointDto] }) points: SeriesPointDto[];
}

export const seriesView = (metric: string, groupBy: string, timezone: string, s: { period: { from: Date; to: Date }; points: Array<{ start: Date; value: number | null; count: number }> }): SeriesDto => ({
  metric,
  group_by: groupBy,
  timezone,
  period: period(s.period),
  points: s.points.map((p) => ({ timestamp: new Date(p.start).toISOString(), value: p.value === null ? null : Math.round(p.value * 1000) / 1000, count: p.count })),
});

export class PerformanceDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ description: 'Conversations created (assigned to the agent / of the team at creation)' }) conversations: number;
  @ApiProperty() resolved: number;
  @ApiProperty({ description: 'Replies sent' }) messages_outgoing: number;
  @ApiProperty({ nullable: true, type: Number, description: 'Average seconds to the first reply' }) avg_first_response_time: number | null;
  @ApiProperty({ nullable: true, type: Number }) avg_resolution_time: number | null;
  @ApiProperty({ nullable: true, type: Number }) avg_reply_time: number | null;
  @ApiProperty({ description: 'Open conversations now (assigned to the agent / of the team)' }) open_now: number;
}

const r3 = (v: number | null) => (v === null ? null : Math.round(v * 1000) / 1000);

export const performanceView = (r: PerformanceRow): PerformanceDto => ({
  id: r.id,
  name: r.name,
  conversations: r.conversations,
  resolved: r.resolved,
  messages_outgoing: r.messagesOutgoing,
  avg_first_response_time: r3(r.firstResponseTime),
  avg_resolution_time: r3(r.resolutionTime),
  avg_reply_time: r3(r.replyTime),
  open_now: r.openNow,
});
