import { AsyncLocalStorage } from 'node:async_hooks';
import { Injectable } from '@nestjs/common';
import {
  ConversationAssigneeChanged,
  ConversationCreated,
  ConversationMessageCreated,
  ConversationStatusChanged,
  Outbox,
  type ConversationEventData,
  type ConversationEventOrigin,
  type EventContract,
} from '@platform/messaging';
import type { Conversation, Message } from './conversation';

/**
 * What recipes (and anything else of this service) hear of conversations: raised through the
 * outbox in the transaction that made the change, so an event exists exactly when its change
 * committed, and consumed through the inbox (once per consumer, whichever replica takes it).
 * This service's own events (producer and consumer are conversation-api), like `conversation.access_ended`;
 * their contracts are in @platform/messaging.
 */
export type ConversationTrigger = 'message_created' | 'conversation_created' | 'status_changed' | 'assignee_changed';

export type EventOrigin = ConversationEventOrigin;
export { ConversationAssigneeChanged, ConversationCreated, ConversationMessageCreated, ConversationStatusChanged, type ConversationEventData };

export const CONVERSATION_EVENTS: Record<ConversationTrigger, EventContract<ConversationEventData>> = {
  message_created: ConversationMessageCreated,
  conversation_created: ConversationCreated,
  status_changed: ConversationStatusChanged,
  assignee_changed: ConversationAssigneeChanged,
};

/** The trigger of an event type, or null for another type. */
export function triggerOf(type: string): ConversationTrigger | null {
  for (const [trigger, contract] of Object.entries(CONVERSATION_EVENTS)) if (contract.type === type) return trigger as ConversationTrigger;
  return null;
}

const origins = new AsyncLocalStorage<EventOrigin>();

/** Runs `fn` as the doing of a recipe run: every event `fn` raises carries `origin` (the loop guard reads it). */
export function withOrigin<T>(origin: EventOrigin, fn: () => Promise<T>): Promise<T> {
  return origins.run(origin, fn);
}

const MAX_CONTENT = 4096;

@Injectable()
export class ConversationEvents {
  constructor(private readonly outbox: Outbox) {}

  /** Enqueues the event in the open transaction (the caller's change and the event commit together). */
  async raise(trigger: ConversationTrigger, c: Pick<Conversation, 'id' | 'accountId' | 'channelId'>, extra: { message?: Message; from?: string | null; to?: string | null } = {}): Promise<void> {
    const m = extra.message;
    await this.outbox.enqueue(CONVERSATION_EVENTS[trigger], {
      accountId: c.accountId,
      conversationId: c.id,
      channelId: c.channelId,
      ...(m && (m.messageType === 'incoming' || m.messageType === 'outgoing')
        ? { message: { id: m.id, type: m.messageType, content: m.content === null ? null : m.content.slice(0, MAX_CONTENT), contentType: m.contentType } }
        : {}),
      ...(extra.from !== undefined ? { from: extra.from } : {}),
      ...(extra.to !== undefined ? { to: extra.to } : {}),
      origin: origins.getStore() ?? null,
    });
  }
}
