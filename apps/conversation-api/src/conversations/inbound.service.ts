import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { AccountsService } from '../accounts/accounts.service';
import { ChannelsService, type Channel } from '../channels/channels.service';
import { ContactsService } from '../contacts/contacts.service';
import { RealtimeEvents } from '../realtime/realtime-events';
import { statusAfterIncoming, type Attachment, type MessageStatus } from './conversation';
import { ConversationEvents } from './conversation-events';
import { ConversationsRepository } from './conversations.repository';
import { conversationView, messageView } from './dto/conversation.dto';
import { MessagesRepository } from './messages.repository';

/** One message a contact sent through a channel, in the channel-neutral form. */
export interface InboundMessage {
  /** The provider's message id: a second delivery of the same id creates nothing. */
  sourceId: string;
  /** The sender's address on the channel (WhatsApp `wa_id`). */
  from: string;
  profileName: string | null;
  content: string | null;
  contentType: string;
  attachments: Attachment[];
  /** The sender's email address, kept on a new contact (email channels). */
  email?: string | null;
  /** Channel-specific details kept with the message (an email's headers). */
  contentAttributes?: Record<string, unknown>;
  /**
   * Email threading: the Message-IDs the mail answers (In-Reply-To, References). When given, the
   * conversation holding one of them on the channel takes the message, else a new one opens (instead
   * of the sender's latest conversation).
   */
  thread?: string[];
}

/** Rolls back a delivery found to be stored already after it created something. */
class RedeliveryRollback extends Error {}

export type InboundResult = { duplicate: true } | { duplicate: false; conversationId: string; messageId: string; contactCreated: boolean; conversationCreated: boolean };

@Injectable()
export class InboundService {
  constructor(
    private readonly transactions: Transactions,
    private readonly accounts: AccountsService,
    private readonly channels: ChannelsService,
    private readonly contacts: ContactsService,
    private readonly conversations: ConversationsRepository,
    private readonly messages: MessagesRepository,
    private readonly realtime: RealtimeEvents,
    private readonly events: ConversationEvents,
  ) {}

  /** Whether the provider message was stored already (a cheap check before fetching media). */
  seen(channelId: string, sourceId: string): Promise<boolean> {
    return this.messages.existsBySource(channelId, sourceId);
  }

  /**
   * Stores an incoming message, once per provider message id, in one transaction: the contact (new
   * senders become contacts), its latest conversation on the channel (reopened when resolved or
   * snoozed) or a new one (team of the channel, agent by round robin when the channel assigns
   * automatically), the message, and the waiting time. Deliveries of one sender take turns (an
   * advisory lock), so concurrent redeliveries and a new sender's first messages never duplicate.
   */
  async receive(channel: Channel, m: InboundMessage): Promise<InboundResult> {
    const result = await this.transactions
      .transaction(async () => {
        await this.transactions.lock(`inbound:${channel.id}:${m.from}`);
        // The common case in one query: a known sender with a conversation on this channel (email: the thread's conversation).
        let conversation = m.thread ? await this.conversations.ofThread(channel.id, m.thread) : await this.conversations.latestForSource(channel.id, m.from);
        let contactCreated = false;
        let conversationCreated = false;
        let contactId: string;
        const profile = m.thread ? { name: m.profileName, email: m.email ?? null } : { name: m.profileName, phone: `+${m.from.replace(/^\+/, '')}` };
        if (conversation && !m.thread) {
          contactId = conversation.contactId;
          if (!conversation.contact.name && m.profileName) await this.contacts.rename(channel.accountId, contactId, m.profileName);
        } else if (conversation) {
          // A reply in a mail thread may come from another address than the conversation's contact (a colleague in copy).
          const found = await this.contacts.findOrCreateBySource(channel.accountId, channel.id, m.from, profile);
          contactId = found.contact.id;
          contactCreated = found.created;
        } else {
          const found = await this.contacts.findOrCreateBySource(channel.accountId, channel.id, m.from, profile);
          contactId = found.contact.id;
          contactCreated = found.created;
          const assigneeId = channel.autoAssignment ? await this.channels.nextAssignee(channel) : null;
          const id = await this.conversations.insert({
            accountId: channel.accountId,
            displayId: await this.accounts.nextDisplayId(channel.accountId),
            channelId: channel.id,
            contactId,
            status: 'open',
            assigneeId,
            teamId: channel.teamId,
          });
          conversation = (await this.conversations.find(channel.accountId, id))!;
          conversationCreated = true;
        }
        const message = await this.messages.insertUnlessStored({
          accountId: channel.accountId,
          conversationId: conversation.id,
          channelId: channel.id,
          messageType: 'incoming',
          content: m.content,
          contentType: m.contentType,
          status: 'delivered',
          sourceId: m.sourceId,
          senderType: 'contact',
          senderId: contactId,
          attachments: m.attachments,
          contentAttributes: m.contentAttributes,
        });
        if (!message) {
          // Stored already: nothing of this delivery may stay (a stored message implies its contact and conversation existed).
          if (contactCreated || conversationCreated) throw new RedeliveryRollback();
          return null;
        }
        const next = statusAfterIncoming(conversation.status);
        const statusChanged = next !== conversation.status;
        if (statusChanged) {
          await this.conversations.setStatus(conversation.id, next, null);
          await this.messages.insert({ accountId: channel.accountId, conversationId: conversation.id, channelId: channel.id, messageType: 'activity', content: 'Conversation was reopened by a new message from the contact', status: 'sent' });
        }
        const after = await this.conversations.touchIncoming(conversation.id);
        if (conversationCreated) await this.events.raise('conversation_created', after);
        if (statusChanged) await this.events.raise('status_changed', after, { from: conversation.status, to: next });
        await this.events.raise('message_created', after, { message });
        return { message, conversation: after, contactCreated, conversationCreated, statusChanged };
      })
      .catch((err: unknown) => {
        if (err instanceof RedeliveryRollback) return null;
        throw err;
      });
    if (!result) return { duplicate: true };
    const { message, conversation } = result;
    if (result.conversationCreated) this.realtime.emit(conversation, 'conversation.created', conversationView(conversation));
    if (result.statusChanged) this.realtime.emit(conversation, 'conversation.status_changed', conversationView(conversation));
    this.realtime.emit(conversation, 'message.created', messageView(message));
    return { duplicate: false, conversationId: conversation.id, messageId: message.id, contactCreated: result.contactCreated, conversationCreated: result.conversationCreated };
  }

  /** A provider status callback (sent, delivered, read, failed) for one of our outgoing messages. */
  async status(channel: Channel, sourceId: string, status: MessageStatus, error: string | null): Promise<boolean> {
    const message = await this.messages.advanceStatus(channel.id, sourceId, status, error);
    if (message) this.realtime.emit({ accountId: channel.accountId, channelId: channel.id }, 'message.updated', messageView(message));
    return message !== null;
  }
}
