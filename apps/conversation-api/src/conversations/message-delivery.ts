import { Injectable, Logger } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ChannelsService } from '../channels/channels.service';
import { CredentialsUnreadableError } from '../channels/channel-credentials';
import { MailServerError } from '../channels/email.client';
import { replyThread } from '../channels/email-threading';
import { ProviderError } from '../channels/whatsapp.client';
import { ConversationApiConfig } from '../config';
import { ContactsService } from '../contacts/contacts.service';
import { RealtimeEvents } from '../realtime/realtime-events';
import { isTransientDeliveryError, retryDelayMs, type Message, type OutgoingDelivery } from './conversation';
import { ConversationsRepository } from './conversations.repository';
import { messageView } from './dto/conversation.dto';
import { MessagesRepository } from './messages.repository';

/** How long a claimed reply stays with one worker before another may take it (the first one crashed). */
const LEASE_SECONDS = 120;

/** A reply that cannot be sent however often it is tried (no channel, no address). */
class Undeliverable extends Error {}

/**
 * Sends queued agent replies through their channel (the delivery worker's job): `sent` with the
 * provider's id, or — on a transient failure (provider unreachable, 5xx, 408, 429) — pending again
 * with the error, due after a doubling delay, until `CONVERSATION_DELIVERY_MAX_ATTEMPTS`; then, or at
 * once on a permanent refusal, `failed` with the reason (the retry route queues it again). Only a
 * sent reply counts as the conversation's first response.
 */
@Injectable()
export class MessageDelivery {
  private readonly logger = new Logger(MessageDelivery.name);

  constructor(
    private readonly transactions: Transactions,
    private readonly messages: MessagesRepository,
    private readonly conversations: ConversationsRepository,
    private readonly channels: ChannelsService,
    private readonly contacts: ContactsService,
    private readonly realtime: RealtimeEvents,
    private readonly config: ConversationApiConfig,
  ) {}

  /** Claims and sends up to `limit` due replies; how many were claimed. */
  async deliverDue(limit = 20): Promise<number> {
    const claimed = await this.messages.claimDeliveries(limit, LEASE_SECONDS);
    for (const delivery of claimed) await this.deliver(delivery);
    return claimed.length;
  }

  private async deliver(d: OutgoingDelivery): Promise<void> {
    const audience = { accountId: d.accountId, channelId: d.channelId };
    let updated: Message | null;
    try {
      const conversation = await this.conversations.find(d.accountId, d.message.conversationId);
      const channel = conversation && (await this.channels.find(d.accountId, d.channelId));
      if (!conversation || !channel) throw new Undeliverable('the channel was removed');
      const to = await this.contacts.sourceIdOn(conversation.contactId, channel.id);
      if (!to) throw new Undeliverable('the contact has no address on this channel');
      // Email: the reply answers the conversation's latest mail, in its thread.
      const thread = channel.email ? replyThread(d.message.id, channel.email.address, await this.messages.latestMail(conversation.id), `Conversation #${conversation.displayId}`) : undefined;
      const providerId = await this.channels.send(channel, to, d.message.content ?? '', d.outbound, thread);
      updated = await this.transactions.transaction(async () => {
        const attributes = thread ? { email: { subject: thread.subject, to: [{ address: to, name: null }], message_id: thread.messageId, in_reply_to: thread.inReplyTo ?? null, references: thread.references ?? [] } } : undefined;
        const sent = await this.messages.markSent(d.message.id, providerId, attributes);
        if (sent) await this.conversations.recordDeliveredReply(conversation.id, sent.createdAt);
        return sent;
      });
    } catch (err) {
      const reason = (err as Error).message;
      const transient =
        err instanceof MailServerError
          ? err.transient
          : isTransientDeliveryError(err instanceof ProviderError ? err.providerStatus : undefined, !(err instanceof Undeliverable || err instanceof CredentialsUnreadableError));
      if (transient && d.attempt < this.config.CONVERSATION_DELIVERY_MAX_ATTEMPTS) {
        const delay = retryDelayMs(d.attempt, this.config.CONVERSATION_DELIVERY_RETRY_MS);
        this.logger.warn(`message ${d.message.id}: attempt ${d.attempt} failed (${reason}); next in ${delay} ms`);
        updated = await this.messages.scheduleRetry(d.message.id, reason, delay);
      } else {
        this.logger.warn(`message ${d.message.id} not sent after ${d.attempt} attempt(s): ${reason}`);
        updated = await this.messages.markFailed(d.message.id, reason);
      }
    }
    if (updated) this.realtime.emit(audience, 'message.updated', messageView(updated));
  }
}
