import { AsyncLocalStorage } from 'node:async_hooks';
import { Injectable } from '@nestjs/common';
import { defineEvent, Outbox, type EventContract } from '@platform/messaging';
import type { Conversation, Message } from './conversation';

/**
 * What recipes (and anything else of this service) hear of conversations: raised through the
 * outbox in the transaction that made the change, so an event exists exactly when its change
 * committed, and consumed through the inbox (once per consumer, whichever replica takes it).
 * This service's own events (producer and consumer are conversation-api), like `conversation.access_ended`.
 */
export type ConversationTrigger = 'message_created' | 'conversation_created' | 'status_changed' | 'assignee_changed';

/** The chain of recipe actions that led to an event: none for a person's or a contact's doing. */
export interface EventOrigin {
  /** The recipes whose actions led here, first to last. */
  recipeIds: string[];
  /** How many recipe runs led here (the length of the chain). */
  depth: number;
}

export interface ConversationEventData {
  accountId: string;
  conversationId: string;
  channelId: string;
  /** message_created: the message (its text cut to 4096 characters). */
  message?: { id: string; type: 'incoming' | 'outgoing'; content: string | null; contentType: string };
  /** status_changed: the status before and after; assignee_changed: the assignee before and after. */
  from?: string | null;
  to?: string | null;
  origin: EventOrigin | null;
}

export const ConversationMessageCreated = defineEvent<ConversationEventData>('conversation.message_created');
export const ConversationCreated = defineEvent<ConversationEventData>('conversation.created');
export const ConversationStatusChanged = defineEvent<ConversationEventData>('conversation.status_changed');
export const ConversationAssigneeChanged = defineEvent<ConversationEventData>('conversation.assignee_changed');

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
