import { Injectable, Logger } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import type { Principal } from '../access/principal';
import { ChannelsService } from '../channels/channels.service';
import type { OutboundPayload } from '../channels/whatsapp.client';
import { notFound } from '../common/errors';
import { ContactsService } from '../contacts/contacts.service';
import { RealtimeEvents } from '../realtime/realtime-events';
import { TeamsService } from '../teams/teams.service';
import { UsersService } from '../users/users.service';
import type { Conversation, ConversationStatus, Message } from './conversation';
import { ConversationsRepository, type ConversationFilters } from './conversations.repository';
import { conversationView, messageView, type AssignDto, type SendReplyDto, type UpdateConversationDto } from './dto/conversation.dto';
import { MediaStore } from '../media/media-store';
import { MessageDeliveryWorker } from './message-delivery.worker';
import { MessagesRepository } from './messages.repository';
import { isAutomation } from './automation-principal';
import { ConversationEvents } from './conversation-events';

const MESSAGES_SHOWN = 200;

@Injectable()
export class ConversationsService {
  private readonly logger = new Logger(ConversationsService.name);

  constructor(
    private readonly transactions: Transactions,
    private readonly conversations: ConversationsRepository,
    private readonly messages: MessagesRepository,
    private readonly contacts: ContactsService,
    private readonly channels: ChannelsService,
    private readonly users: UsersService,
    private readonly teams: TeamsService,
    private readonly realtime: RealtimeEvents,
    private readonly delivery: MessageDeliveryWorker,
    private readonly media: MediaStore,
    private readonly events: ConversationEvents,
  ) {}

  /** A stored attachment of a message the caller sees; 404 `ATTACHMENT_NOT_FOUND` when there is no downloaded copy. */
  async attachment(p: Principal, id: string, messageId: string, index: number) {
    await this.get(p, id);
    const message = await this.messages.find(id, messageId);
    const attachment = message?.attachments[index];
    const file = attachment?.storage_key ? await this.media.open(attachment.storage_key) : null;
    if (!attachment || !file) throw notFound('attachment');
    return { ...file, mimeType: attachment.mime_type ?? 'application/octet-stream', filename: attachment.filename ?? `${attachment.type}-${messageId}-${index}` };
  }

  /** The caller's conversations: administrators see the account's, everyone else those of the channels they are members of. */
  async list(p: Principal, filters: ConversationFilters, limit: number, offset: number) {
    const scope = await this.channels.visibleChannelIds(p);
    return this.conversations.list(p.accountId, { ...filters, channelIds: scope ?? undefined }, limit, offset);
  }

  /** The conversation when the caller sees it (its account, and one of its channels unless administrator); else 404. */
  async get(p: Principal, id: string): Promise<Conversation> {
    return this.seen(p, await this.conversations.find(p.accountId, id));
  }

  /** The contact's latest `limit` conversations the caller sees. */
  async ofContact(p: Principal, contactId: string, limit: number): Promise<Conversation[]> {
    return (await this.list(p, { contactId }, limit, 0)).items;
  }

  async getWithMessages(p: Principal, id: string): Promise<{ conversation: Conversation; messages: Message[] }> {
    const conversation = await this.get(p, id);
    return { conversation, messages: await this.messages.list(id, MESSAGES_SHOWN) };
  }

  /** 404 `CONVERSATION_NOT_FOUND` unless the conversation exists and is in one of the caller's channels (any, for administrators). */
  private async seen(p: Principal, conversation: Conversation | null): Promise<Conversation> {
    if (!conversation) throw notFound('conversation');
    const scope = await this.channels.visibleChannelIds(p);
    if (scope && !scope.includes(conversation.channelId)) throw notFound('conversation');
    return conversation;
  }

  /**
   * An agent's reply: stored as `pending` and queued, in one transaction, for the delivery worker,
   * which sends it through the channel (retrying transient failures) and moves it to `sent` or
   * `failed` (`message.updated` on the socket). Answers at once with the pending message.
   */
  async sendMessage(p: Principal, id: string, reply: SendReplyDto): Promise<Message> {
    if ([reply.media, reply.template].filter(Boolean).length > 1 || (reply.template && reply.content)) {
      throw new ApiError(422, 'VALIDATION_ERROR', 'A reply is one of: text (content), media (with an optional content as caption), or a template', {
        errors: [{ field: reply.template ? 'template' : 'media', message: 'send text, media or a template, one per message', code: 'conflict' }],
      });
    }
    const outbound: OutboundPayload | null = reply.template
      ? { kind: 'template', name: reply.template.name, language: reply.template.language, ...(reply.template.components ? { components: reply.template.components } : {}) }
      : reply.media
        ? { kind: 'media', type: reply.media.type, link: reply.media.link, caption: reply.media.caption ?? reply.content, filename: reply.media.filename }
        : null;
    const content = outbound?.kind === 'template' ? `[template ${outbound.name}]` : outbound?.kind === 'media' ? (outbound.caption ?? null) : reply.content!;
    const { message, conversation } = await this.transactions.transaction(async () => {
      const conversation = await this.seen(p, await this.conversations.lock(p.accountId, id));
      const message = await this.messages.insert({
        accountId: p.accountId,
        conversationId: id,
        channelId: conversation.channelId,
        messageType: 'outgoing',
        content,
        contentType: outbound?.kind === 'media' ? outbound.type : outbound?.kind ?? 'text',
        attachments: outbound?.kind === 'media' ? [{ type: outbound.type, url: outbound.link, ...(outbound.filename ? { filename: outbound.filename } : {}) }] : [],
        status: 'pending',
        senderType: isAutomation(p) ? null : 'user',
        senderId: isAutomation(p) ? null : p.userId,
        queued: true,
        outbound,
      });
      await this.conversations.touch(id);
      await this.events.raise('message_created', conversation, { message });
      return { message, conversation };
    });
    this.delivery.wake();
    this.realtime.emit(conversation, 'message.created', messageView(message));
    return message;
  }

  /** Queues a `failed` reply again (attempts counted afresh); 409 `MESSAGE_NOT_RETRYABLE` for any other message. */
  async retry(p: Principal, id: string, messageId: string): Promise<Message> {
    const conversation = await this.get(p, id);
    const message = await this.messages.find(id, messageId);
    if (!message) throw notFound('message');
    const queued = await this.messages.requeue(messageId);
    if (!queued) {
      throw new ApiError(409, 'MESSAGE_NOT_RETRYABLE', `Only failed replies are sent again; this message is ${message.private ? 'a private note' : message.status}`, {
        suggestion: 'Retry a public outgoing message whose status is failed.',
      });
    }
    this.delivery.wake();
    this.realtime.emit(conversation, 'message.updated', messageView(queued));
    return queued;
  }

  /** A private note: visible to agents only, never sent through the channel, no effect on response times. */
  async whisper(p: Principal, id: string, content: string): Promise<Message> {
    const { note: message, conversation } = await this.transactions.transaction(async () => {
      const conversation = await this.seen(p, await this.conversations.lock(p.accountId, id));
      const note = await this.messages.insert({
        accountId: p.accountId,
        conversationId: id,
        channelId: conversation.channelId,
        messageType: 'outgoing',
        content,
        private: true,
        status: 'sent',
        senderType: 'user',
        senderId: p.userId,
      });
      await this.conversations.touch(id);
      return { note, conversation };
    });
    this.realtime.emit(conversation, 'message.created', messageView(message));
    return message;
  }

  /** Sets the agent and/or team (null removes, omitted keeps); the agent must be an active user of the account. */
  async assign(p: Principal, id: string, dto: AssignDto): Promise<Conversation> {
    const conversation = await this.transactions.transaction(async () => {
      const current = await this.seen(p, await this.conversations.lock(p.accountId, id));
      const assigneeId = dto.assignee_id === undefined ? current.assigneeId : dto.assignee_id;
      const teamId = dto.team_id === undefined ? current.teamId : dto.team_id;
      let assigneeName: string | null = null;
      if (assigneeId && assigneeId !== current.assigneeId) {
        const user = await this.users.find(p.accountId, assigneeId);
        if (!user?.active) throw notFound('assignee', 'ASSIGNEE_NOT_FOUND');
        assigneeName = user.name;
      }
      if (teamId && teamId !== current.teamId) await this.teams.get(p.accountId, teamId);
      await this.conversations.assign(id, assigneeId, teamId);
      if (assigneeId !== current.assigneeId) await this.events.raise('assignee_changed', current, { from: current.assigneeId, to: assigneeId });
      if (assigneeId !== current.assigneeId) {
        await this.activity(current, assigneeId ? `Assigned to ${assigneeName} by ${p.name}` : `Unassigned by ${p.name}`);
      }
      if (teamId !== current.teamId) await this.activity(current, teamId ? `Team changed by ${p.name}` : `Team removed by ${p.name}`);
      return (await this.conversations.find(p.accountId, id))!;
    });
    this.realtime.emit(conversation, 'conversation.assigned', conversationView(conversation));
    return conversation;
  }

  /** open / pending / snoozed (optionally until a time) / resolved, with an activity line. */
  async setStatus(p: Principal, id: string, status: ConversationStatus, snoozedUntil?: Date): Promise<Conversation> {
    if (snoozedUntil && status !== 'snoozed') throw new ApiError(422, 'VALIDATION_ERROR', 'snoozed_until goes with status snoozed only', { errors: [{ field: 'snoozed_until', message: 'only with status snoozed', code: 'invalid' }] });
    if (snoozedUntil && snoozedUntil.getTime() <= Date.now()) throw new ApiError(422, 'VALIDATION_ERROR', 'snoozed_until must be in the future', { errors: [{ field: 'snoozed_until', message: 'must be in the future', code: 'too_small' }] });
    const { conversation, changed } = await this.transactions.transaction(async () => {
      const current = await this.seen(p, await this.conversations.lock(p.accountId, id));
      if (current.status === status && status !== 'snoozed') return { conversation: current, changed: false };
      await this.conversations.setStatus(id, status, snoozedUntil ?? null);
      if (current.status !== status) await this.events.raise('status_changed', current, { from: current.status, to: status });
      const words: Record<ConversationStatus, string> = { open: 'reopened', pending: 'marked pending', snoozed: 'snoozed', resolved: 'resolved' };
      await this.activity(current, `Conversation was ${words[status]} by ${p.name}`);
      return { conversation: (await this.conversations.find(p.accountId, id))!, changed: true };
    });
    if (changed) this.realtime.emit(conversation, 'conversation.status_changed', conversationView(conversation));
    return conversation;
  }

  /** Labels and priority, each change with an activity line and `conversation.updated` on the socket. */
  async update(p: Principal, id: string, dto: UpdateConversationDto): Promise<Conversation> {
    const { conversation, changed } = await this.transactions.transaction(async () => {
      const current = await this.seen(p, await this.conversations.lock(p.accountId, id));
      const labels = dto.labels === undefined ? current.labels : [...new Set(dto.labels)];
      const priority = dto.priority === undefined ? current.priority : dto.priority;
      const added = labels.filter((l) => !current.labels.includes(l));
      const removed = current.labels.filter((l) => !labels.includes(l));
      const lines: string[] = [];
      if (added.length) lines.push(`${p.name} added ${added.join(', ')}`);
      if (removed.length) lines.push(`${p.name} removed ${removed.join(', ')}`);
      if (priority !== current.priority) lines.push(priority ? `${p.name} set the priority to ${priority}` : `${p.name} removed the priority`);
      if (!lines.length) return { conversation: current, changed: false };
      await this.conversations.setLabelsAndPriority(id, dto.labels === undefined ? undefined : labels, dto.priority);
      for (const line of lines) await this.activity(current, line);
      return { conversation: (await this.conversations.find(p.accountId, id))!, changed: true };
    });
    if (changed) this.realtime.emit(conversation, 'conversation.updated', conversationView(conversation));
    return conversation;
  }

  private async activity(c: Conversation, content: string): Promise<void> {
    await this.messages.insert({ accountId: c.accountId, conversationId: c.id, channelId: c.channelId, messageType: 'activity', content, status: 'sent' });
  }
}
