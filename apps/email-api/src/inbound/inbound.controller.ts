import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentProject, ProjectAccess, type ProjectContext } from '../access/project-access.guard';
import { ApiErrors, PARAM_ERRORS } from '../common/api-errors.decorator';
import { InboundMessageDto, InboundMessagePageDto, ListInboundQueryDto } from './dto/inbound.dto';
import { InboundMessagesService } from './inbound-messages.service';

@ApiTags('Inbound')
@ProjectAccess({ session: true })
@Controller('inbound')
export class InboundController {
  constructor(private readonly inbound: InboundMessagesService) {}

  @Get()
  @ApiOperation({
    summary: 'Mail received for the project\'s verified domains (not shown in the spec)',
    description:
      'Mail delivered to the inbound SMTP receiver (INBOUND_SMTP_PORT) for any address of a verified domain of the project — publish the domain\'s optional `INBOUND` MX record. Newest first, cursor pagination `{data, cursor, hasMore, total}`; items leave out the bodies and headers (GET /inbound/{id} has them). ' +
      '`emailId` keeps the replies to one sent mail. Each message shows its SPF, DKIM and DMARC results.',
  })
  @ApiOkResponse({ type: InboundMessagePageDto })
  @ApiErrors(PARAM_ERRORS, { 400: '`INVALID_CURSOR`: the cursor is not one this list returned' })
  list(@CurrentProject() ctx: ProjectContext, @Query() query: ListInboundQueryDto) {
    return this.inbound.list(ctx.project.id, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'A received message with its headers, text, HTML, attachments and authentication results' })
  @ApiOkResponse({ type: InboundMessageDto })
  @ApiErrors(PARAM_ERRORS, { 404: '`INBOUND_MESSAGE_NOT_FOUND`: no received message with this id in the project' })
  get(@CurrentProject() ctx: ProjectContext, @Param('id') id: string) {
    return this.inbound.get(ctx.project.id, id);
  }
}
