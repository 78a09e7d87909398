import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentProject, ProjectAccess, type ProjectContext } from '../access/project-access.guard';
import { ApiErrors, PARAM_ERRORS } from '../common/api-errors.decorator';
import { DEFAULT_LIMIT } from '../common/list-query.dto';
import { decodeCursor, toPage } from '../common/pagination';
import { ActivityRepository } from './activity.repository';
import { ACTIVITY_TYPES, ActivityPageDto, ActivityQueryDto, ActivityStatsDto, RecentCountDto, SinceQueryDto } from './dto/activity.dto';

const DAY = 24 * 60 * 60 * 1000;

@ApiTags('Activity')
@ProjectAccess({ session: true })
@Controller('activity')
export class ActivityController {
  constructor(private readonly activity: ActivityRepository) {}

  @Get()
  @ApiOperation({
    summary: 'Activity feed: tracked events and emails (queued, sent, failed, suppressed, stored), newest first',
    description: 'Items `{id, type, title, contactId, email, data, createdAt}`; cursor pagination like GET /contacts. Emails stored without SMTP_URL appear as `email.stored` with the reason in `data.statusReason`.',
  })
  @ApiOkResponse({ type: ActivityPageDto })
  @ApiErrors(PARAM_ERRORS, { 400: '`INVALID_CURSOR`: the cursor is not one this list returned' })
  async list(@CurrentProject() ctx: ProjectContext, @Query() query: ActivityQueryDto) {
    const limit = query.limit ?? DEFAULT_LIMIT;
    const after = decodeCursor(query.cursor);
    const filter = { type: query.type, contactId: query.contactId };
    const [rows, total] = await Promise.all([this.activity.page(ctx.project.id, limit, after, filter), after ? null : this.activity.count(ctx.project.id, filter)]);
    return toPage(rows, limit, total);
  }

  @Get('stats')
  @ApiOperation({ summary: 'Counts by type since `since` (default 30 days): `{since, total, events, emails, byType}`' })
  @ApiOkResponse({ type: ActivityStatsDto })
  @ApiErrors(PARAM_ERRORS)
  async stats(@CurrentProject() ctx: ProjectContext, @Query() query: SinceQueryDto) {
    const since = query.since ?? new Date(Date.now() - 30 * DAY);
    const byType = await this.activity.countsByType(ctx.project.id, since);
    const total = Object.values(byType).reduce((a, b) => a + b, 0);
    const events = byType['event'] ?? 0;
    return { since, total, events, emails: total - events, byType };
  }

  @Get('recent-count')
  @ApiOperation({ summary: 'Number of activity items since `since` (default 24 hours)' })
  @ApiOkResponse({ type: RecentCountDto })
  @ApiErrors(PARAM_ERRORS)
  async recentCount(@CurrentProject() ctx: ProjectContext, @Query() query: SinceQueryDto) {
    const since = query.since ?? new Date(Date.now() - DAY);
    return { since, count: await this.activity.count(ctx.project.id, { since }) };
  }

  @Get('types')
  @ApiOperation({ summary: 'Distinct activity types present in the project' })
  @ApiOkResponse({ schema: { type: 'array', items: { type: 'string', enum: [...ACTIVITY_TYPES] } }, description: 'Alphabetical' })
  types(@CurrentProject() ctx: ProjectContext) {
    return this.activity.types(ctx.project.id);
  }
}
