import { Body, Controller, Delete, Get, Param, ParseUUIDPipe, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiOkEnvelope } from '@platform/envelopes';
import { RequirePermission, ApiErrorAnswer } from '../access/access.decorators';
import { CurrentPrincipal, type Principal } from '../access/principal';
import { DeletedDto } from '../common/deleted.dto';
import { pageOf } from '../common/pagination';
import { CannedResponsesService } from './canned-responses.service';
import { RenderCannedResponse } from './render-canned-response';
import { CannedResponseDto, cannedView, CreateCannedResponseDto, ListCannedResponsesQueryDto, RenderedCannedResponseDto, RenderQueryDto, UpdateCannedResponseDto } from './dto/canned-response.dto';

/**
 * Canned responses. Read with `conversations:read` (agents pick them); written with `recipes:write`
 * (recipes reply with them; the spec names no permission of their own).
 */
@ApiTags('canned-responses')
@Controller('api/v1/canned-responses')
export class CannedResponsesController {
  constructor(
    private readonly canned: CannedResponsesService,
    private readonly rendering: RenderCannedResponse,
  ) {}

  @Get()
  @RequirePermission('conversations:read')
  @ApiOperation({ summary: 'Canned responses by short code (paginated; `q` searches short codes and texts)' })
  @ApiOkEnvelope(CannedResponseDto, { isArray: true })
  async list(@CurrentPrincipal() p: Principal, @Query() query: ListCannedResponsesQueryDto) {
    const { page, limit, offset } = pageOf(query);
    const { items, total } = await this.canned.list(p.accountId, query.q, limit, offset);
    return { items: items.map(cannedView), total, page, limit };
  }

  @Get(':id')
  @RequirePermission('conversations:read')
  @ApiOkEnvelope(CannedResponseDto)
  @ApiErrorAnswer(404, '`CANNED_RESPONSE_NOT_FOUND`: no such canned response in the caller\'s account (ids of another account answer 404 too)')
  async get(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string) {
    return cannedView(await this.canned.get(p.accountId, id));
  }

  @Get(':id/render')
  @RequirePermission('conversations:read')
  @ApiOperation({
    summary: 'The canned response filled in for a conversation',
    description: 'Variables from the conversation’s contact, the caller (`{{agent.*}}`), the conversation’s number and the account. The conversation must be one the caller sees (404 `CONVERSATION_NOT_FOUND` otherwise).',
  })
  @ApiOkEnvelope(RenderedCannedResponseDto)
  @ApiErrorAnswer(404, '`CANNED_RESPONSE_NOT_FOUND`: no such canned response in the caller\'s account (ids of another account answer 404 too); `CONVERSATION_NOT_FOUND` for a `conversation_id` the caller cannot see')
  render(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string, @Query() query: RenderQueryDto) {
    return this.rendering.execute(p, id, query.conversation_id);
  }

  @Post()
  @RequirePermission('recipes:write')
  @ApiOperation({ summary: 'Add a canned response', description: '409 `SHORT_CODE_TAKEN`; 422 for an unknown `{{variable}}`.' })
  @ApiOkEnvelope(CannedResponseDto, { status: 201 })
  async create(@CurrentPrincipal() p: Principal, @Body() body: CreateCannedResponseDto) {
    return cannedView(await this.canned.create(p.accountId, body));
  }

  @Patch(':id')
  @RequirePermission('recipes:write')
  @ApiOkEnvelope(CannedResponseDto)
  @ApiErrorAnswer(404, '`CANNED_RESPONSE_NOT_FOUND`: no such canned response in the caller\'s account (ids of another account answer 404 too)')
  async update(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string, @Body() body: UpdateCannedResponseDto) {
    return cannedView(await this.canned.update(p.accountId, id, body));
  }

  @Delete(':id')
  @RequirePermission('recipes:write')
  @ApiOperation({ summary: 'Delete a canned response', description: 'A published recipe replying with it logs that action as failed from then on.' })
  @ApiOkEnvelope(DeletedDto)
  @ApiErrorAnswer(404, '`CANNED_RESPONSE_NOT_FOUND`: no such canned response in the caller\'s account (ids of another account answer 404 too)')
  delete(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string) {
    return this.canned.delete(p.accountId, id);
  }
}
