import { Controller, Delete, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentProject, ProjectAccess, type ProjectContext } from '../access/project-access.guard';
import { ListEventsQueryDto } from './dto/track.dto';
import { EventsService } from './events.service';

@ApiTags('Events')
@ProjectAccess({ session: true })
@Controller('events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @ApiOperation({ summary: 'Recent events, newest first (cursor pagination like GET /contacts; filter `name`)' })
  recent(@CurrentProject() ctx: ProjectContext, @Query() query: ListEventsQueryDto) {
    return this.events.recent(ctx.project.id, query);
  }

  @Get('stats')
  @ApiOperation({ summary: 'Totals: all events, distinct names and contacts, last 24 h / 7 d / 30 d, top 10 names' })
  stats(@CurrentProject() ctx: ProjectContext) {
    return this.events.stats(ctx.project.id);
  }

  @Get('names')
  @ApiOperation({ summary: 'Distinct event names with count, firstSeen and lastSeen' })
  names(@CurrentProject() ctx: ProjectContext) {
    return this.events.names(ctx.project.id);
  }

  @Get('contact/:contactId')
  @ApiOperation({ summary: 'Events of one contact (cursor pagination)' })
  ofContact(@CurrentProject() ctx: ProjectContext, @Param('contactId') contactId: string, @Query() query: ListEventsQueryDto) {
    return this.events.ofContact(ctx.project.id, contactId, query);
  }

  @Get(':eventName/usage')
  @ApiOperation({ summary: 'Where an event name is used: count, distinct contacts, firstSeen, lastSeen' })
  usage(@CurrentProject() ctx: ProjectContext, @Param('eventName') name: string) {
    return this.events.usage(ctx.project.id, name);
  }

  @Delete(':eventName')
  @ApiOperation({ summary: 'Delete every event of that name; returns `{name, deleted}`' })
  delete(@CurrentProject() ctx: ProjectContext, @Param('eventName') name: string) {
    return this.events.deleteByName(ctx.project.id, name);
  }
}
