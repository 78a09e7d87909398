import { AsyncLocalStorage } from 'node:async_hooks';
import { Inject, Injectable } from '@nestjs/common';
import {
  ConversationAssigneeChanged,
  ConversationCreated,
  ConversationMessageCreated,
  ConversationStatusChanged,
  createEnvelope,
  Outbox,
  OutboxRelay,
  type ConversationEventData,
  type ConversationEventOrigin,
  type EventContract,
  type EventEnvelope,
  type OutboxRow,
} from '@platform/messaging';
import { SERVICE_NAME } from '@platform/platform';
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
/** How long events a writer put into the outbox itself stay claimed by it (see `publish`) before the relay may take them. */
export const EVENT_CLAIM_SECONDS = 60;
/** Length of the outbox's correlation id. */
const MAX_CORRELATION_ID = 200;

type Extra = { message?: Pick<Message, 'id' | 'messageType' | 'content' | 'contentType'>; from?: string | null; to?: string | null };

/** One event to raise: its trigger, the conversation and what else it carries. */
export interface RaisedEvent {
  trigger: ConversationTrigger;
  conversation: Pick<Conversation, 'id' | 'accountId' | 'channelId'>;
  extra?: Extra;
  /** The request that caused it. */
  correlationId?: string;
}

function eventData(c: Pick<Conversation, 'id' | 'accountId' | 'channelId'>, extra: Extra): ConversationEventData {
  const m = extra.message;
  return {
    accountId: c.accountId,
    conversationId: c.id,
    channelId: c.channelId,
    ...(m && (m.messageType === 'incoming' || m.messageType === 'outgoing')
      ? { message: { id: m.id, type: m.messageType, content: m.content === null ? null : m.content.slice(0, MAX_CONTENT), contentType: m.contentType } }
      : {}),
    ...(extra.from !== undefined ? { from: extra.from } : {}),
    ...(extra.to !== undefined ? { to: extra.to } : {}),
    origin: origins.getStore() ?? null,
  };
}

@Injectable()
export class ConversationEvents {
  constructor(
    private readonly outbox: Outbox,
    private readonly relay: OutboxRelay,
    @Inject(SERVICE_NAME) private readonly source: string,
  ) {}

  /** Enqueues the event in the open transaction (the caller's change and the event commit together). */
  async raise(trigger: ConversationTrigger, c: Pick<Conversation, 'id' | 'accountId' | 'channelId'>, extra: Extra = {}): Promise<void> {
    await this.outbox.enqueue(CONVERSATION_EVENTS[trigger], eventData(c, extra));
  }

  /**
   * The envelopes of several events (the events `raise` would enqueue), for a repository that
   * writes them into the outbox itself together with the change they announce, claimed for
   * EVENT_CLAIM_SECONDS; the rows it wrote go to `publish` once committed.
   */
  envelopes(raised: RaisedEvent[]): Array<EventEnvelope<ConversationEventData>> {
    return raised.map((e) =>
      createEnvelope(CONVERSATION_EVENTS[e.trigger], eventData(e.conversation, e.extra ?? {}), this.source, e.correlationId ? { correlationId: e.correlationId.slice(0, MAX_CORRELATION_ID) } : {}),
    );
  }

  /** Publishes outbox rows written claimed (see `envelopes`) whose transaction committed; never rejects: what fails is left to the relay. */
  publish(events: OutboxRow[]): Promise<void> {
    return this.relay.publishClaimed(events);
  }
}
