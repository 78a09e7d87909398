import { Body, Controller, Get, HttpCode, Param, ParseIntPipe, ParseUUIDPipe, Patch, Post, Query, StreamableFile } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiOkEnvelope, ApiPageEnvelope } from '@platform/envelopes';
import { RequirePermission, ApiErrorAnswer } from '../access/access.decorators';
import { CurrentPrincipal, type Principal } from '../access/principal';
import { RawResponse } from '../common/envelope.interceptor';
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
  SendReplyDto,
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
  @ApiErrorAnswer(404, '`CONVERSATION_NOT_FOUND`: no such conversation in the caller\'s account, or in a channel the caller (not an administrator) is no member of')
  async get(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string) {
    const { conversation, messages } = await this.conversations.getWithMessages(p, id);
    return { ...conversationView(conversation), messages: messages.map(messageView) };
  }

  @Post(':id/messages')
  @RequirePermission('conversations:write')
  @ApiOperation({
    summary: 'Send a message to the contact',
    description:
      "Stored as `pending` and queued; the delivery worker sends it through the conversation's channel (WhatsApp Cloud API) and moves it to `sent` (with the provider's id) or `failed` (with the reason), announced as `message.updated` on the socket. " +
      'Transient failures (provider unreachable, 5xx, 408, 429) are retried with a doubling delay up to `CONVERSATION_DELIVERY_MAX_ATTEMPTS`; a refusal of the message fails it at once. ' +
      'Only a sent reply counts as the first response. ' +
      'Besides text (`content`): media by public https link (`media: {type, link, caption?, filename?}`) and approved templates (`template: {name, language, components?}`, the only messages WhatsApp delivers outside the 24-hour customer service window); one kind per message, else 422.',
  })
  @ApiOkEnvelope(MessageDto, { status: 201 })
  @ApiErrorAnswer(404, '`CONVERSATION_NOT_FOUND`: no such conversation in the caller\'s account, or in a channel the caller (not an administrator) is no member of')
  async send(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string, @Body() body: SendReplyDto) {
    return messageView(await this.conversations.sendMessage(p, id, body));
  }

  @Get(':id/messages/:messageId/attachments/:index')
  @RawResponse()
  @RequirePermission('conversations:read')
  @ApiOperation({ summary: 'Download an attachment', description: "The copy of a received media file stored when it arrived (`download_path` of the attachment); 404 `ATTACHMENT_NOT_FOUND` when none was stored. Scoped like the conversation." })
  @ApiResponse({ status: 200, description: 'The file, with its mime type' })
  @ApiErrorAnswer(404, '`CONVERSATION_NOT_FOUND`: no such conversation in the caller\'s account, or in a channel the caller (not an administrator) is no member of; `MESSAGE_NOT_FOUND` / `ATTACHMENT_NOT_FOUND`')
  async attachment(
    @CurrentPrincipal() p: Principal,
    @Param('id', ParseUUIDPipe) id: string,
    @Param('messageId', ParseUUIDPipe) messageId: string,
    @Param('index', new ParseIntPipe()) index: number,
  ): Promise<StreamableFile> {
    const file = await this.conversations.attachment(p, id, messageId, index);
    return new StreamableFile(file.stream, { type: file.mimeType, length: file.size, disposition: `attachment; filename="${file.filename.replace(/[^\w.-]/g, '_')}"` });
  }

  @Post(':id/messages/:messageId/retry')
  @HttpCode(200)
  @RequirePermission('conversations:write')
  @ApiOperation({ summary: 'Send a failed reply again', description: 'Queues it again (`pending`, attempts counted afresh). 409 `MESSAGE_NOT_RETRYABLE` unless it is a public outgoing message whose status is `failed`; 404 `MESSAGE_NOT_FOUND`.' })
  @ApiOkEnvelope(MessageDto)
  @ApiResponse({ status: 409, description: '`MESSAGE_NOT_RETRYABLE`' })
  @ApiErrorAnswer(404, '`CONVERSATION_NOT_FOUND`: no such conversation in the caller\'s account, or in a channel the caller (not an administrator) is no member of; `MESSAGE_NOT_FOUND` / `ATTACHMENT_NOT_FOUND`')
  async retry(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string, @Param('messageId', ParseUUIDPipe) messageId: string) {
    return messageView(await this.conversations.retry(p, id, messageId));
  }

  @Post(':id/whisper')
  @RequirePermission('conversations:write')
  @ApiOperation({ summary: 'Add a private note', description: 'Visible to agents only; never sent to the contact.' })
  @ApiOkEnvelope(MessageDto, { status: 201 })
  @ApiErrorAnswer(404, '`CONVERSATION_NOT_FOUND`: no such conversation in the caller\'s account, or in a channel the caller (not an administrator) is no member of')
  async whisper(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string, @Body() body: SendMessageDto) {
    return messageView(await this.conversations.whisper(p, id, body.content));
  }

  @Post(':id/assign')
  @HttpCode(200)
  @RequirePermission('conversations:assign')
  @ApiOperation({ summary: 'Assign an agent and/or a team', description: '404 `ASSIGNEE_NOT_FOUND` (not an active user of the account), `TEAM_NOT_FOUND`.' })
  @ApiOkEnvelope(ConversationDto)
  @ApiErrorAnswer(404, '`CONVERSATION_NOT_FOUND`: no such conversation in the caller\'s account, or in a channel the caller (not an administrator) is no member of')
  async assign(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string, @Body() body: AssignDto) {
    return conversationView(await this.conversations.assign(p, id, body));
  }

  @Post(':id/close')
  @HttpCode(200)
  @RequirePermission('conversations:write')
  @ApiOperation({ summary: 'Resolve (close) the conversation', description: 'The next incoming message reopens it.' })
  @ApiOkEnvelope(ConversationDto)
  @ApiErrorAnswer(404, '`CONVERSATION_NOT_FOUND`: no such conversation in the caller\'s account, or in a channel the caller (not an administrator) is no member of')
  async close(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string) {
    return conversationView(await this.conversations.setStatus(p, id, 'resolved'));
  }

  @Post(':id/reopen')
  @HttpCode(200)
  @RequirePermission('conversations:write')
  @ApiOkEnvelope(ConversationDto)
  @ApiErrorAnswer(404, '`CONVERSATION_NOT_FOUND`: no such conversation in the caller\'s account, or in a channel the caller (not an administrator) is no member of')
  async reopen(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string) {
    return conversationView(await this.conversations.setStatus(p, id, 'open'));
  }

  @Post(':id/status')
  @HttpCode(200)
  @RequirePermission('conversations:write')
  @ApiOperation({ summary: 'Set the status: open, pending, snoozed (optionally until `snoozed_until`), resolved' })
  @ApiOkEnvelope(ConversationDto)
  @ApiErrorAnswer(404, '`CONVERSATION_NOT_FOUND`: no such conversation in the caller\'s account, or in a channel the caller (not an administrator) is no member of')
  async status(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string, @Body() body: SetStatusDto) {
    return conversationView(await this.conversations.setStatus(p, id, body.status, body.snoozed_until ? new Date(body.snoozed_until) : undefined));
  }

  @Patch(':id')
  @RequirePermission('conversations:write')
  @ApiOperation({ summary: 'Set labels and priority', description: 'Each change writes an activity line to the conversation and is announced as `conversation.updated` on the socket.' })
  @ApiOkEnvelope(ConversationDto)
  @ApiErrorAnswer(404, '`CONVERSATION_NOT_FOUND`: no such conversation in the caller\'s account, or in a channel the caller (not an administrator) is no member of')
  async update(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string, @Body() body: UpdateConversationDto) {
    return conversationView(await this.conversations.update(p, id, body));
  }
}
