import 'reflect-metadata';
import type { EventContract, EventData, EventEnvelope } from '../contracts/event-contract';

export const EVENT_CONSUMER = 'platform:messaging:event-consumer';
export const ON_EVENT = 'platform:messaging:on-event';

export interface EventConsumerOptions {
  /** Messages this consumer handles at once; default EVENTS_PREFETCH. */
  prefetch?: number;
  /** Redeliveries of a failed event before it goes to `<queue>.dlq`; default EVENTS_MAX_RETRIES. */
  maxRetries?: number;
  /**
   * false: the handlers run without the inbox (no transaction, no `processed_events` mark), for
   * handlers that are idempotent by themselves or write nothing. Default true.
   */
  inbox?: boolean;
}

export interface OnEventOptions {
  /** Overrides the consumer's `inbox` for this handler. */
  inbox?: boolean;
}

export interface EventConsumerMetadata extends EventConsumerOptions {
  name: string;
}

export interface OnEventMetadata extends OnEventOptions {
  events: EventContract<unknown>[];
}

/**
 * Declares a provider as an event consumer: `name` is its durable queue (prefixed with
 * EVENTS_QUEUE_PREFIX) and its inbox name. Its `@OnEvent` methods are subscribed when the app
 * starts (MessagingModule finds them through Nest's DiscoveryService). Replicas sharing a name
 * compete for messages; distinct names each get every event.
 */
export function EventConsumer(name: string, options: EventConsumerOptions = {}): ClassDecorator {
  return (target) => {
    const metadata: EventConsumerMetadata = { ...options, name };
    Reflect.defineMetadata(EVENT_CONSUMER, metadata, target);
  };
}

/**
 * Handles the given event(s) in an `@EventConsumer` class. The method receives the envelope and
 * runs once per event id (the inbox: in one `db.transaction` with every write it makes through
 * `Database`) in a fresh async context; throwing makes the event come back (retries, then the DLQ).
 */
export function OnEvent<C extends EventContract<any>>(events: C | C[], options: OnEventOptions = {}) {
  const list = Array.isArray(events) ? events : [events];
  return <M extends (event: EventEnvelope<EventData<C>>) => Promise<unknown>>(
    target: object,
    key: string | symbol,
    descriptor: TypedPropertyDescriptor<M>,
  ): void => {
    if (list.length === 0) throw new Error(`@OnEvent on ${String(key)} needs at least one event`);
    const metadata: OnEventMetadata = { ...options, events: list };
    Reflect.defineMetadata(ON_EVENT, metadata, descriptor.value as object);
  };
}
