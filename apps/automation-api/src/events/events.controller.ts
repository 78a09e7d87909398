import { Controller, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountAuth, CurrentAccount } from '../accounts/account-key.guard';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { ErrorDto } from '../common/error.dto';
import { EventPageDto, ListEventsQueryDto } from './dto/event.dto';
import { EventsService } from './events.service';

@ApiTags('events')
@AccountAuth()
@Controller('api/v1/events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @ApiOperation({ summary: 'Activity log', description: 'Newest first, filtered by kind and automation, cursor pagination (`next_cursor`).' })
  @ApiOkResponse({ type: EventPageDto })
  @ApiBadRequestResponse({ type: ErrorDto })
  list(@CurrentAccount() account: AccountEntity, @Query() query: ListEventsQueryDto): Promise<EventPageDto> {
    return this.events.list(account.id, query);
  }
}
