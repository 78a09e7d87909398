import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiOkEnvelope } from '@platform/envelopes';
import { RequirePermission } from '../access/access.decorators';
import { CurrentPrincipal, type Principal } from '../access/principal';
import { AnalyticsService, type ReportQuery } from './analytics.service';
import { PerformanceDto, performanceView, ReportQueryDto, SeriesDto, SeriesQueryDto, seriesView, SummaryDto, summaryView } from './dto/analytics.dto';

const FROM_EVENTS =
  'Computed from the reporting events (written with each change of a conversation or message: created, resolved, message in, reply sent, first response, reply time), not from the messages; limited to the channels the caller sees (all for administrators). Filters: `channel_id`, `team_id`, `agent_id` (`me`), `label`; period `from` (inclusive) to `to` (exclusive), default the last 7 days. Times in seconds.';

@ApiTags('analytics')
@Controller('api/v1/analytics')
export class AnalyticsController {
  constructor(private readonly analytics: AnalyticsService) {}

  private query(p: Principal, q: ReportQueryDto): ReportQuery {
    return { from: q.from, to: q.to, channelId: q.channel_id, teamId: q.team_id, agentId: q.agent_id === 'me' ? p.userId : q.agent_id, label: q.label };
  }

  @Get('summary')
  @RequirePermission('analytics:read')
  @ApiOperation({
    summary: 'KPI snapshot compared with the previous period',
    description: `Conversations created and resolved, messages in and out, average first response, resolution and reply times — each with the value of the period of the same length just before and the change in percent — and the conversations open, unassigned, pending and snoozed now. ${FROM_EVENTS}`,
  })
  @ApiOkEnvelope(SummaryDto)
  async summary(@CurrentPrincipal() p: Principal, @Query() q: ReportQueryDto) {
    return summaryView(await this.analytics.summary(p, this.query(p, q)));
  }

  @Get('timeseries')
  @RequirePermission('analytics:read')
  @ApiOperation({
    summary: 'One metric per hour or day, in a time zone',
    description: `Metrics named as Chatwoot's reports: conversations_count, incoming_messages_count, outgoing_messages_count, resolutions_count, avg_first_response_time, avg_resolution_time, avg_reply_time. Every bucket of the period is listed (0, or null for averages, where nothing happened); buckets are local hours or calendar days of \`timezone\` (IANA; default: the account's time zone, \`PATCH /api/v1/account\`). ${FROM_EVENTS}`,
  })
  @ApiOkEnvelope(SeriesDto)
  async series(@CurrentPrincipal() p: Principal, @Query() q: SeriesQueryDto) {
    const groupBy = q.group_by ?? 'day';
    const series = await this.analytics.series(p, { ...this.query(p, q), metric: q.metric, groupBy, timeZone: q.timezone });
    return seriesView(q.metric, groupBy, series.timeZone, series);
  }

  @Get('agents')
  @RequirePermission('analytics:read')
  @ApiOperation({ summary: 'Agent performance', description: `Per user of the account: conversations, resolutions, replies sent and the average times of the events attributed to them, and their open conversations now. ${FROM_EVENTS}` })
  @ApiOkEnvelope(PerformanceDto, { isArray: true })
  async agents(@CurrentPrincipal() p: Principal, @Query() q: ReportQueryDto) {
    return (await this.analytics.agents(p, this.query(p, q))).map(performanceView);
  }

  @Get('teams')
  @RequirePermission('analytics:read')
  @ApiOperation({ summary: 'Team performance', description: `Per team: the figures of the events of conversations the team had at the time, and its open conversations now. ${FROM_EVENTS}` })
  @ApiOkEnvelope(PerformanceDto, { isArray: true })
  async teams(@CurrentPrincipal() p: Principal, @Query() q: ReportQueryDto) {
    return (await this.analytics.teams(p, this.query(p, q))).map(performanceView);
  }
}
