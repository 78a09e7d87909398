import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentProject, ProjectAccess, type ProjectContext } from '../access/project-access.guard';
import { ApiErrors, PARAM_ERRORS } from '../common/api-errors.decorator';
import { AnalyticsService } from './analytics.service';
import { CampaignTotalsDto, SinceLimitQueryDto, SinceOnlyQueryDto, TimeseriesDto, TimeseriesQueryDto, TopCampaignDto, TopEventDto } from './dto/analytics.dto';

@ApiTags('Analytics')
@ProjectAccess({ session: true })
@Controller('analytics')
export class AnalyticsController {
  constructor(private readonly analytics: AnalyticsService) {}

  @Get('timeseries')
  @ApiOperation({
    summary: 'Mail events per hour or day of a time zone',
    description:
      'Counts of sends, deliveries, opens, clicks, bounces, complaints, unsubscribes and inbound mail per hour or day of `timeZone` (IANA) that [from, to) touches, each bucket counted whole and listed even when empty, ' +
      'from the quarter-hour rollups written with each event. In a daylight-saving change the repeated local hour is one bucket.',
  })
  @ApiOkResponse({ type: TimeseriesDto })
  @ApiErrors(PARAM_ERRORS, { 422: '`VALIDATION_ERROR`: also an unknown `timeZone` (code `invalid_time_zone`), `from` not before `to` or too many buckets (code `invalid_range`)' })
  timeseries(@CurrentProject() ctx: ProjectContext, @Query() query: TimeseriesQueryDto) {
    return this.analytics.timeseries(ctx.project.id, query);
  }

  @Get('top-campaigns')
  @ApiOperation({ summary: 'Campaigns started since `since`, ranked by mails opened by a person, then clicked', description: 'With counts and rates from the mails\' columns (opens and clicks of people only).' })
  @ApiOkResponse({ type: [TopCampaignDto] })
  @ApiErrors(PARAM_ERRORS)
  topCampaigns(@CurrentProject() ctx: ProjectContext, @Query() query: SinceLimitQueryDto) {
    return this.analytics.topCampaigns(ctx.project.id, query);
  }

  @Get('campaign-stats')
  @ApiOperation({ summary: 'Totals and rates of every campaign mail written since `since`' })
  @ApiOkResponse({ type: CampaignTotalsDto })
  @ApiErrors(PARAM_ERRORS)
  campaignStats(@CurrentProject() ctx: ProjectContext, @Query() query: SinceOnlyQueryDto) {
    return this.analytics.campaignStats(ctx.project.id, query);
  }

  @Get('top-events')
  @ApiOperation({ summary: 'The most tracked event names since `since`, with their distinct contacts' })
  @ApiOkResponse({ type: [TopEventDto] })
  @ApiErrors(PARAM_ERRORS)
  topEvents(@CurrentProject() ctx: ProjectContext, @Query() query: SinceLimitQueryDto) {
    return this.analytics.topEvents(ctx.project.id, query);
  }
}
