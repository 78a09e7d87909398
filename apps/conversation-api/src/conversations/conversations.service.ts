import { Injectable, Logger } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import type { Principal } from '../auth/principal';
import { ChannelsService } from '../channels/channels.service';
import { notFound } from '../common/errors';
import { ContactsService } from '../contacts/contacts.service';
import { RealtimeEvents } from '../realtime/realtime-events';
import { TeamsService } from '../teams/teams.service';
import { UsersService } from '../users/users.service';
import type { Conversation, ConversationStatus, Message } from './conversation';
import { ConversationsRepository, type ConversationFilters } from './conversations.repository';
import { conversationView, messageView, type AssignDto, type UpdateConversationDto } from './dto/conversation.dto';
import { MessagesRepository } from './messages.repository';

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
  ) {}

  list(p: Principal, filters: ConversationFilters, limit: number, offset: number) {
    return this.conversations.list(p.accountId, filters, limit, offset);
  }

  async get(accountId: string, id: string): Promise<Conversation> {
    const conversation = await this.conversations.find(accountId, id);
    if (!conversation) throw notFound('conversation');
    return conversation;
  }

  /** The contact's latest `limit` conversations in the account. */
  async ofContact(accountId: string, contactId: string, limit: number): Promise<Conversation[]> {
    return (await this.conversations.list(accountId, { contactId }, limit, 0)).items;
  }

  async getWithMessages(accountId: string, id: string): Promise<{ conversation: Conversation; messages: Message[] }> {
    const conversation = await this.get(accountId, id);
    return { conversation, messages: await this.messages.list(id, MESSAGES_SHOWN) };
  }

  /**
   * An agent's reply: stored as `pending`, then sent through the conversation's channel (WhatsApp Cloud
   * API) and marked `sent` with the provider's message id, or `failed` with the provider's error
   * (then 502 `PROVIDER_ERROR`; the message stays in the conversation, marked failed).
   * The first public reply sets `first_reply_created_at`; the contact no longer waits.
   */
  async sendMessage(p: Principal, id: string, content: string): Promise<Message> {
    const { message, conversation } = await this.transactions.transaction(async () => {
      const conversation = await this.conversations.lock(p.accountId, id);
      if (!conversation) throw notFound('conversation');
      const message = await this.messages.insert({
        accountId: p.accountId,
        conversationId: id,
        channelId: conversation.channelId,
        messageType: 'outgoing',
        content,
        status: 'pending',
        senderType: 'user',
        senderId: p.userId,
      });
      await this.conversations.touchReply(id);
      return { message, conversation };
    });
    this.realtime.emit(p.accountId, 'message.created', messageView(message));
    const sent = await this.deliver(conversation, message, content);
    this.realtime.emit(p.accountId, 'message.updated', messageView(sent));
    if (sent.status === 'failed') {
      throw new ApiError(502, 'PROVIDER_ERROR', `The message was stored but the channel refused it: ${sent.error}`, {
        suggestion: 'Check the channel credentials (PATCH /api/v1/channels/{id}) and send the message again.',
      });
    }
    return sent;
  }

  /** A private note: visible to agents only, never sent through the channel, no effect on response times. */
  async whisper(p: Principal, id: string, content: string): Promise<Message> {
    const message = await this.transactions.transaction(async () => {
      const conversation = await this.conversations.lock(p.accountId, id);
      if (!conversation) throw notFound('conversation');
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
      return note;
    });
    this.realtime.emit(p.accountId, 'message.created', messageView(message));
    return message;
  }

  /** Sets the agent and/or team (null removes, omitted keeps); the agent must be an active user of the account. */
  async assign(p: Principal, id: string, dto: AssignDto): Promise<Conversation> {
    const conversation = await this.transactions.transaction(async () => {
      const current = await this.conversations.lock(p.accountId, id);
      if (!current) throw notFound('conversation');
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
      if (assigneeId !== current.assigneeId) {
        await this.activity(current, assigneeId ? `Assigned to ${assigneeName} by ${p.name}` : `Unassigned by ${p.name}`);
      }
      if (teamId !== current.teamId) await this.activity(current, teamId ? `Team changed by ${p.name}` : `Team removed by ${p.name}`);
      return (await this.conversations.find(p.accountId, id))!;
    });
    this.realtime.emit(p.accountId, 'conversation.assigned', conversationView(conversation));
    return conversation;
  }

  /** open / pending / snoozed (optionally until a time) / resolved, with an activity line. */
  async setStatus(p: Principal, id: string, status: ConversationStatus, snoozedUntil?: Date): Promise<Conversation> {
    if (snoozedUntil && status !== 'snoozed') throw new ApiError(422, 'VALIDATION_ERROR', 'snoozed_until goes with status snoozed only', { errors: [{ field: 'snoozed_until', message: 'only with status snoozed', code: 'invalid' }] });
    if (snoozedUntil && snoozedUntil.getTime() <= Date.now()) throw new ApiError(422, 'VALIDATION_ERROR', 'snoozed_until must be in the future', { errors: [{ field: 'snoozed_until', message: 'must be in the future', code: 'too_small' }] });
    const { conversation, changed } = await this.transactions.transaction(async () => {
      const current = await this.conversations.lock(p.accountId, id);
      if (!current) throw notFound('conversation');
      if (current.status === status && status !== 'snoozed') return { conversation: current, changed: false };
      await this.conversations.setStatus(id, status, snoozedUntil ?? null);
      const words: Record<ConversationStatus, string> = { open: 'reopened', pending: 'marked pending', snoozed: 'snoozed', resolved: 'resolved' };
      await this.activity(current, `Conversation was ${words[status]} by ${p.name}`);
      return { conversation: (await this.conversations.find(p.accountId, id))!, changed: true };
    });
    if (changed) this.realtime.emit(p.accountId, 'conversation.status_changed', conversationView(conversation));
    return conversation;
  }

  async update(p: Principal, id: string, dto: UpdateConversationDto): Promise<Conversation> {
    await this.get(p.accountId, id);
    await this.conversations.setLabelsAndPriority(id, dto.labels, dto.priority);
    return this.get(p.accountId, id);
  }

  private async activity(c: Conversation, content: string): Promise<void> {
    await this.messages.insert({ accountId: c.accountId, conversationId: c.id, channelId: c.channelId, messageType: 'activity', content, status: 'sent' });
  }

  private async deliver(conversation: Conversation, message: Message, content: string): Promise<Message> {
    try {
      const channel = await this.channels.find(conversation.accountId, conversation.channelId);
      if (!channel) throw new Error('the channel was removed');
      const to = await this.contacts.sourceIdOn(conversation.contactId, channel.id);
      if (!to) throw new Error('the contact has no address on this channel');
      const providerId = await this.channels.sendText(channel, to, content);
      return (await this.messages.markSent(message.id, providerId)) ?? message;
    } catch (err) {
      this.logger.warn(`message ${message.id} of conversation ${conversation.id} not sent: ${(err as Error).message}`);
      return (await this.messages.markFailed(message.id, (err as Error).message)) ?? message;
    }
  }
}
