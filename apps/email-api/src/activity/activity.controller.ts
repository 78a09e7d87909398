import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentProject, ProjectAccess, type ProjectContext } from '../access/project-access.guard';
import { ApiErrors, PARAM_ERRORS } from '../common/api-errors.decorator';
import { ActivityService } from './activity.service';
import { ACTIVITY_TYPES, ActivityPageDto, ActivityQueryDto, ActivityStatsDto, RecentCountDto, SinceQueryDto, UpcomingItemDto, UpcomingQueryDto } from './dto/activity.dto';

@ApiTags('Activity')
@ProjectAccess({ session: true })
@Controller('activity')
export class ActivityController {
  constructor(private readonly activity: ActivityService) {}

  @Get()
  @ApiOperation({
    summary: 'Activity feed: tracked events, emails and what happened to them (delivered, opened, clicked, bounced, complained, unsubscribed, received), newest first',
    description:
      'Items `{id, type, title, contactId, email, emailId, campaignId, data, createdAt}`; filters `type`, `contactId`, `emailId`, `campaignId`, `since`, `until`; cursor pagination like GET /contacts. ' +
      'Emails stored without SMTP_URL appear as `email.stored` with the reason in `data.statusReason`. Each mail event appears once (they are written once per idempotency key).',
  })
  @ApiOkResponse({ type: ActivityPageDto })
  @ApiErrors(PARAM_ERRORS, { 400: '`INVALID_CURSOR`: the cursor is not one this list returned' })
  list(@CurrentProject() ctx: ProjectContext, @Query() query: ActivityQueryDto) {
    return this.activity.list(ctx.project.id, query);
  }

  @Get('stats')
  @ApiOperation({ summary: 'Counts by type since `since` (default 30 days): `{since, total, events, emails, mailEvents, byType}`' })
  @ApiOkResponse({ type: ActivityStatsDto })
  @ApiErrors(PARAM_ERRORS)
  stats(@CurrentProject() ctx: ProjectContext, @Query() query: SinceQueryDto) {
    return this.activity.stats(ctx.project.id, query.since);
  }

  @Get('recent-count')
  @ApiOperation({ summary: 'Number of activity items since `since` (default 24 hours)' })
  @ApiOkResponse({ type: RecentCountDto })
  @ApiErrors(PARAM_ERRORS)
  recentCount(@CurrentProject() ctx: ProjectContext, @Query() query: SinceQueryDto) {
    return this.activity.recentCount(ctx.project.id, query.since);
  }

  @Get('upcoming')
  @ApiOperation({
    summary: 'Upcoming sends and executions: scheduled campaigns and waiting workflow executions, soonest first',
    description:
      'Items `{type: "campaign", id, name, subject, scheduledFor, audienceType}` and `{type: "workflow_execution", id, workflowId, workflowName, contactId, stepId, stepName, stepType, scheduledFor, waitingFor}` ' +
      '(an execution waiting at a DELAY resumes at `scheduledFor`; at a WAIT_FOR_EVENT it resumes on the event `waitingFor`, or at its timeout `scheduledFor` — null without timeout, listed last). At most `limit` items in all.',
  })
  @ApiOkResponse({ type: [UpcomingItemDto] })
  @ApiErrors(PARAM_ERRORS)
  upcoming(@CurrentProject() ctx: ProjectContext, @Query() query: UpcomingQueryDto) {
    return this.activity.upcoming(ctx.project.id, query.limit);
  }

  @Get('types')
  @ApiOperation({ summary: 'Distinct activity types present in the project' })
  @ApiOkResponse({ schema: { type: 'array', items: { type: 'string', enum: [...ACTIVITY_TYPES] } }, description: 'Alphabetical' })
  types(@CurrentProject() ctx: ProjectContext) {
    return this.activity.types(ctx.project.id);
  }
}
