import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiOkEnvelope, ApiPageEnvelope } from '@platform/envelopes';
import { RequirePermission } from '../auth/access.decorators';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { pageOf } from '../common/pagination';
import { ConversationsService } from './conversations.service';
import {
  AssignDto,
  ConversationDto,
  ConversationWithMessagesDto,
  conversationView,
  ListConversationsQueryDto,
  MessageDto,
  messageView,
  SendMessageDto,
  SetStatusDto,
  UpdateConversationDto,
} from './dto/conversation.dto';

@ApiTags('conversations')
@Controller('api/v1/conversations')
export class ConversationsController {
  constructor(private readonly conversations: ConversationsService) {}

  @Get()
  @RequirePermission('conversations:read')
  @ApiOperation({ summary: 'List conversations', description: 'Filters combine (AND); most recent activity first.' })
  @ApiPageEnvelope(ConversationDto)
  async list(@CurrentPrincipal() p: Principal, @Query() q: ListConversationsQueryDto) {
    const { page, limit, offset } = pageOf(q);
    const { items, total } = await this.conversations.list(
      p,
      {
        status: q.status,
        assigneeId: q.assignee_id === 'me' ? p.userId : q.assignee_id,
        teamId: q.team_id,
        channelId: q.channel_id,
        label: q.label,
        unassigned: q.unassigned,
        q: q.q,
      },
      limit,
      offset,
    );
    return { items: items.map(conversationView), total, page, limit };
  }

  @Get(':id')
  @RequirePermission('conversations:read')
  @ApiOperation({ summary: 'A conversation with its messages (private notes included)' })
  @ApiOkEnvelope(ConversationWithMessagesDto)
  async get(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string) {
    const { conversation, messages } = await this.conversations.getWithMessages(p.accountId, id);
    return { ...conversationView(conversation), messages: messages.map(messageView) };
  }

  @Post(':id/messages')
  @RequirePermission('conversations:write')
  @ApiOperation({
    summary: 'Send a message to the contact',
    description: "Goes out through the conversation's channel (WhatsApp Cloud API). 502 `PROVIDER_ERROR` when the provider refuses it: the message stays, with status `failed` and the reason.",
  })
  @ApiOkEnvelope(MessageDto, { status: 201 })
  @ApiResponse({ status: 502, description: '`PROVIDER_ERROR`' })
  async send(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string, @Body() body: SendMessageDto) {
    return messageView(await this.conversations.sendMessage(p, id, body.content));
  }

  @Post(':id/whisper')
  @RequirePermission('conversations:write')
  @ApiOperation({ summary: 'Add a private note', description: 'Visible to agents only; never sent to the contact.' })
  @ApiOkEnvelope(MessageDto, { status: 201 })
  async whisper(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string, @Body() body: SendMessageDto) {
    return messageView(await this.conversations.whisper(p, id, body.content));
  }

  @Post(':id/assign')
  @HttpCode(200)
  @RequirePermission('conversations:assign')
  @ApiOperation({ summary: 'Assign an agent and/or a team', description: '404 `ASSIGNEE_NOT_FOUND` (not an active user of the account), `TEAM_NOT_FOUND`.' })
  @ApiOkEnvelope(ConversationDto)
  async assign(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string, @Body() body: AssignDto) {
    return conversationView(await this.conversations.assign(p, id, body));
  }

  @Post(':id/close')
  @HttpCode(200)
  @RequirePermission('conversations:write')
  @ApiOperation({ summary: 'Resolve (close) the conversation', description: 'The next incoming message reopens it.' })
  @ApiOkEnvelope(ConversationDto)
  async close(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string) {
    return conversationView(await this.conversations.setStatus(p, id, 'resolved'));
  }

  @Post(':id/reopen')
  @HttpCode(200)
  @RequirePermission('conversations:write')
  @ApiOkEnvelope(ConversationDto)
  async reopen(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string) {
    return conversationView(await this.conversations.setStatus(p, id, 'open'));
  }

  @Post(':id/status')
  @HttpCode(200)
  @RequirePermission('conversations:write')
  @ApiOperation({ summary: 'Set the status: open, pending, snoozed (optionally until `snoozed_until`), resolved' })
  @ApiOkEnvelope(ConversationDto)
  async status(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string, @Body() body: SetStatusDto) {
    return conversationView(await this.conversations.setStatus(p, id, body.status, body.snoozed_until ? new Date(body.snoozed_until) : undefined));
  }

  @Patch(':id')
  @RequirePermission('conversations:write')
  @ApiOperation({ summary: 'Set labels and priority' })
  @ApiOkEnvelope(ConversationDto)
  async update(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string, @Body() body: UpdateConversationDto) {
    return conversationView(await this.conversations.update(p, id, body));
  }
}
