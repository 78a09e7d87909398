import { DEFAULT_MAX_RETRIES, DEFAULT_PREFETCH } from '../event-bus';

export interface AmqpEventBusOptions {
  /** `amqp://user:pass@host:port/vhost` */
  url: string;
  /** Service name written into every envelope's `source`. */
  source: string;
  /** Topic exchange of all events. Default `platform.events` (tests use their own). */
  exchange?: string;
  /** Exchange of dead letters (topic, routing key = consumer). Default `platform.dlx`. */
  dlx?: string;
  /** Default prefetch per consumer. Default 10. */
  prefetch?: number;
  /** Default redeliveries before dead-lettering. Default 5. */
  maxRetries?: number;
  /** First redelivery delay, doubled per attempt. Default 1000 ms. */
  retryDelayMs?: number;
  /** Cap of the redelivery delay. Default 60 s. */
  maxRetryDelayMs?: number;
  /** First reconnect delay, doubled per failed attempt; also paces a failing consumer's set-up retries. Default 250 ms. */
  reconnectDelayMs?: number;
  /** Cap of the reconnect and consumer set-up retry delays. Default 30 s. */
  maxReconnectDelayMs?: number;
  /** How long `publish` waits for the broker's confirm. Default 10 s. */
  publishTimeoutMs?: number;
  /** How long `close` waits for in-flight handlers before closing channels anyway. Default 10 s. */
  shutdownTimeoutMs?: number;
  /** AMQP heartbeat in seconds, unless the URL sets one. Default 15. */
  heartbeatSeconds?: number;
  /**
   * Durable consumers per event type (`EVENT_CONSUMERS`): before an event type is first published on
   * a connection, these queues (`queuePrefix` + name, with `.retry` and `.dlq`) are declared and
   * bound to it, so the event waits for a consumer that has not started yet. Default none.
   */
  consumerQueues?: Readonly<Record<string, readonly string[]>>;
  /** Prefix of the queues of `consumerQueues` (EVENTS_QUEUE_PREFIX). Default none. */
  queuePrefix?: string;
}

export type ResolvedAmqpOptions = Required<AmqpEventBusOptions>;

/** The options with their defaults; an option given as undefined keeps its default. */
export function resolveAmqpOptions(options: AmqpEventBusOptions): ResolvedAmqpOptions {
  return {
    exchange: 'platform.events',
    dlx: 'platform.dlx',
    prefetch: DEFAULT_PREFETCH,
    maxRetries: DEFAULT_MAX_RETRIES,
    retryDelayMs: 1000,
    maxRetryDelayMs: 60_000,
    reconnectDelayMs: 250,
    maxReconnectDelayMs: 30_000,
    publishTimeoutMs: 10_000,
    shutdownTimeoutMs: 10_000,
    heartbeatSeconds: 15,
    consumerQueues: {},
    queuePrefix: '',
    ...(Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as AmqpEventBusOptions),
  };
}

/** What an operator does about a consumer set-up the broker refused (`''` when there is nothing specific). */
export function consumerSetupHint(brokerMessage: string): string {
  if (/inequivalent arg/i.test(brokerMessage)) {
    return 'The queue exists with other arguments than this service declares (RabbitMQ cannot change them): move its messages, delete the queue, and the next attempt re-creates it.';
  }
  if (/ACCESS[_-]REFUSED/i.test(brokerMessage)) {
    return "The RabbitMQ user may not use this queue or exchange: grant configure, write and read permissions on the consumer's queues (rabbitmqctl set_permissions).";
  }
  if (/RESOURCE[_-]LOCKED/i.test(brokerMessage)) {
    return 'Another connection holds the queue exclusively: stop it or rename this consumer.';
  }
  return '';
}

export function errorMessage(err: unknown): string {
  return (err instanceof Error ? err.message : '') || String(err);
}

/** Removes the password from a URL for logs and error messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'amqp://<invalid url>';
  }
}
