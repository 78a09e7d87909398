import { EventContract, EventEnvelope, PublishOptions } from './contracts/event-contract';

export type EventHandler = (event: EventEnvelope<any>) => Promise<void>;

export interface SubscribeOptions {
  /** Messages handed to this consumer at once (AMQP prefetch). Default 10. */
  prefetch?: number;
  /** Redeliveries after a failed handler before the message goes to `<consumer>.dlq`. Default 5. */
  maxRetries?: number;
}

/** Raised by `publish` when no broker connection is open: fail fast, use the Outbox for durability. */
export class BrokerUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BrokerUnavailableError';
  }
}

/** What became of one delivery: the handler succeeded, it failed and the message waits for a retry, or it went to the DLQ. */
export type DeliveryOutcome = 'handled' | 'retried' | 'dead_lettered';

/** Told of every settled delivery of this bus's consumers (metrics). */
export type DeliveryObserver = (consumer: string, outcome: DeliveryOutcome) => void;

/**
 * The event bus port (also the Nest DI token). Adapters: `AmqpEventBus` (RabbitMQ) and
 * `InProcessEventBus` (all apps of one process). Delivery is at-least-once: consumers are
 * idempotent by `event.id` (see `Inbox`).
 */
export abstract class EventBus {
  /** Publishes one event; resolves once the broker has confirmed it. */
  abstract publish<T>(event: EventContract<T>, data: T, opts?: PublishOptions): Promise<void>;

  /** Publishes an envelope built earlier (the outbox relay keeps the stored id and time). */
  abstract publishEnvelope(envelope: EventEnvelope<unknown>): Promise<void>;

  /**
   * Consumes `events` into the durable queue `consumer` (one queue per consuming service or
   * worker). Calling it again for the same consumer adds events and their handler to that queue.
   */
  abstract subscribe(
    consumer: string,
    events: EventContract<any>[],
    handler: EventHandler,
    opts?: SubscribeOptions,
  ): Promise<void>;

  /** Readiness: throws when the broker is unreachable, or when a consumer of this bus cannot consume (the message says which and why). */
  abstract check(): Promise<void>;

  /** Starts connecting (idempotent). */
  abstract start(): Promise<void>;

  /** Stops consuming, lets in-flight handlers finish, then closes channels and connections. */
  abstract close(): Promise<void>;

  private readonly observers = new Set<DeliveryObserver>();

  /** Calls `observer` for every settled delivery of this bus's consumers; returns the function that stops it. */
  onDelivery(observer: DeliveryObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  /** Adapters report each settled delivery here. An observer that throws never disturbs the delivery. */
  protected delivered(consumer: string, outcome: DeliveryOutcome): void {
    for (const observer of this.observers) {
      try {
        observer(consumer, outcome);
      } catch {
        // Metrics must never fail a message.
      }
    }
  }

  /** The consumers subscribed on this bus. */
  consumerNames(): string[] {
    return [];
  }

  /** Messages waiting in each subscribed consumer's dead-letter queue now (metrics); `{}` when unknown. */
  async deadLetterDepths(): Promise<Record<string, number>> {
    return {};
  }
}

export const DEFAULT_PREFETCH = 10;
export const DEFAULT_MAX_RETRIES = 5;

/** Exponential backoff for redelivery: base·2^(attempt-1), capped. */
export function retryDelay(attempt: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
}

export function validateConsumerName(consumer: string): void {
  if (!/^[a-z0-9][a-z0-9._-]*$/i.test(consumer) || consumer.endsWith('.dlq') || consumer.endsWith('.retry')) {
    throw new Error(
      `Invalid consumer name "${consumer}": use letters, digits, ".", "_" or "-" (e.g. "email-api.automation-events"), not ending in .dlq or .retry`,
    );
  }
}
