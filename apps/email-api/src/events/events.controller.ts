import { Controller, Delete, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentProject, ProjectAccess, type ProjectContext } from '../access/project-access.guard';
import { ApiErrors, PARAM_ERRORS } from '../common/api-errors.decorator';
import { EventNameDto, EventPageDto, EventStatsDto, EventUsageDto, EventsDeletedDto } from './dto/event-response.dto';
import { ListEventsQueryDto } from './dto/track.dto';
import { EventsService } from './events.service';

const INVALID_CURSOR = { 400: '`INVALID_CURSOR`: the cursor is not one this list returned' };
const EVENT_NOT_FOUND = { 404: '`EVENT_NOT_FOUND`: no event of this name in the project' };

@ApiTags('Events')
@ProjectAccess({ session: true })
@Controller('events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @ApiOperation({ summary: 'Recent events, newest first (cursor pagination like GET /contacts; filter `name`)' })
  @ApiOkResponse({ type: EventPageDto })
  @ApiErrors(PARAM_ERRORS, INVALID_CURSOR)
  recent(@CurrentProject() ctx: ProjectContext, @Query() query: ListEventsQueryDto) {
    return this.events.recent(ctx.project.id, query);
  }

  @Get('stats')
  @ApiOperation({ summary: 'Totals: all events, distinct names and contacts, last 24 h / 7 d / 30 d, top 10 names' })
  @ApiOkResponse({ type: EventStatsDto })
  stats(@CurrentProject() ctx: ProjectContext) {
    return this.events.stats(ctx.project.id);
  }

  @Get('names')
  @ApiOperation({ summary: 'Distinct event names with count, firstSeen and lastSeen' })
  @ApiOkResponse({ type: EventNameDto, isArray: true, description: 'Most used first' })
  names(@CurrentProject() ctx: ProjectContext) {
    return this.events.names(ctx.project.id);
  }

  @Get('contact/:contactId')
  @ApiOperation({ summary: 'Events of one contact (cursor pagination)' })
  @ApiOkResponse({ type: EventPageDto })
  @ApiErrors(PARAM_ERRORS, INVALID_CURSOR, { 404: '`CONTACT_NOT_FOUND`: no contact with this id in the project' })
  ofContact(@CurrentProject() ctx: ProjectContext, @Param('contactId') contactId: string, @Query() query: ListEventsQueryDto) {
    return this.events.ofContact(ctx.project.id, contactId, query);
  }

  @Get(':eventName/usage')
  @ApiOperation({ summary: 'Where an event name is used: count, distinct contacts, firstSeen, lastSeen, and the segments and campaigns referencing it (404 when never tracked and not referenced)' })
  @ApiOkResponse({ type: EventUsageDto })
  @ApiErrors(PARAM_ERRORS, EVENT_NOT_FOUND)
  usage(@CurrentProject() ctx: ProjectContext, @Param('eventName') name: string) {
    return this.events.usage(ctx.project.id, name);
  }

  @Delete(':eventName')
  @ApiOperation({ summary: 'Delete every event of that name; returns `{name, deleted}`' })
  @ApiOkResponse({ type: EventsDeletedDto })
  @ApiErrors(PARAM_ERRORS, EVENT_NOT_FOUND)
  delete(@CurrentProject() ctx: ProjectContext, @Param('eventName') name: string) {
    return this.events.deleteByName(ctx.project.id, name);
  }
}
