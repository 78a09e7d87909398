import { Logger } from '@nestjs/common';
import type { ChannelModel } from 'amqplib';
import { createEnvelope, encodeEnvelope, EventContract, EventEnvelope, PublishOptions } from '../contracts/event-contract';
import { BrokerUnavailableError, EventBus, EventHandler, SubscribeOptions, validateConsumerName } from '../event-bus';
import { withContextCorrelation } from '../log-context';
import { consumerQueuesOf } from '../contracts/consumers';
import { AmqpConnection } from './amqp-connection';
import { AmqpConsumer } from './amqp-consumer';
import { errorMessage, resolveAmqpOptions, type AmqpEventBusOptions, type ResolvedAmqpOptions } from './amqp-options';
import { MessageSettler } from './message-settler';
import { declareConsumerQueues } from './topology';

export { consumerSetupHint, redactUrl, type AmqpEventBusOptions } from './amqp-options';

/**
 * EventBus on RabbitMQ.
 *
 * Topology: durable topic exchange `platform.events`; per consumer a durable queue `<consumer>`
 * bound to each of its event types, a durable `<consumer>.retry` queue whose messages expire back
 * into `<consumer>` (per-message TTL = backoff delay), and a durable `<consumer>.dlq` bound to the
 * topic exchange `platform.dlx` with key `<consumer>`. Publishing uses confirm channels.
 *
 * Three parts, one job each: `AmqpConnection` (connect, reconnect with backoff, the publish channel
 * and exchanges; `publish` never waits for a reconnect: it fails fast), `AmqpConsumer` (one
 * consumer's channel, queues, bindings and retries of its set-up, isolated from publishing and the
 * other consumers) and `MessageSettler` (handler, then ack, retry queue or dead letter). This class
 * puts them together and orders a graceful close.
 */
export class AmqpEventBus extends EventBus {
  private readonly logger = new Logger('AmqpEventBus');
  private readonly opts: ResolvedAmqpOptions;
  private readonly consumers = new Map<string, AmqpConsumer>();
  private readonly link: AmqpConnection;
  private readonly settler: MessageSettler;
  /** Event types whose consumers' queues were declared (or tried) on the current connection. */
  private declaredFor = new Map<string, Promise<void>>();

  constructor(options: AmqpEventBusOptions) {
    super();
    this.opts = resolveAmqpOptions(options);
    this.link = new AmqpConnection(this.opts, {
      onConnected: () => {
        this.declaredFor = new Map();
        for (const c of this.consumers.values()) void c.sync();
      },
      onDisconnected: () => {
        this.declaredFor = new Map();
        for (const c of this.consumers.values()) c.onConnectionLost();
      },
    });
    this.settler = new MessageSettler(this.opts, this.link, (consumer, outcome) => this.delivered(consumer, outcome));
  }

  /** True while a connection with its publish channel is open. */
  get connected(): boolean {
    return this.link.connected;
  }

  /** The underlying amqplib connection (tests, diagnostics); null while disconnected. */
  get rawConnection(): ChannelModel | null {
    return this.link.current;
  }

  /**
   * Connects (first attempt awaited, failures retried in the background). Consumers subscribed
   * before have had their first set-up attempt when it resolves (a failed one is retried in the
   * background too). Never throws.
   */
  async start(): Promise<void> {
    if (this.link.isClosing) throw new Error('AmqpEventBus is closed');
    if (this.link.isStarted) return this.link.settled();
    await this.link.start();
    await Promise.all([...this.consumers.values()].map((c) => c.idle()));
  }

  /** Resolves once connected (tests and start-up code that must wait for the broker). */
  async waitUntilConnected(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.connected) {
      if (this.link.isClosing) throw new Error('AmqpEventBus is closed');
      if (Date.now() > deadline) throw new BrokerUnavailableError(this.link.unavailableMessage());
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async publish<T>(event: EventContract<T>, data: T, opts?: PublishOptions): Promise<void> {
    await this.publishEnvelope(createEnvelope(event, data, this.opts.source, withContextCorrelation(opts)));
  }

  async publishEnvelope(envelope: EventEnvelope<unknown>): Promise<void> {
    await this.declareConsumersOf(envelope.type);
    const headers: Record<string, unknown> = {};
    if (envelope.correlationId) headers['x-correlation-id'] = envelope.correlationId;
    await this.link.publish(this.opts.exchange, envelope.type, encodeEnvelope(envelope), {
      persistent: true,
      contentType: 'application/json',
      messageId: envelope.id,
      type: envelope.type,
      appId: envelope.source,
      timestamp: Math.floor(new Date(envelope.occurredAt).getTime() / 1000) || undefined,
      correlationId: envelope.correlationId,
      headers,
    });
  }

  /**
   * Declares the queues of the event's durable consumers (`consumerQueues`) once per connection and
   * type, so the event is kept for a consumer that has not started yet. A declaration the broker
   * refuses is logged and not tried again on this connection; publishing goes on.
   */
  private declareConsumersOf(type: string): Promise<void> {
    const queues = consumerQueuesOf(type, this.opts.consumerQueues, this.opts.queuePrefix);
    const connection = this.link.current;
    if (queues.length === 0 || !connection) return Promise.resolve();
    let done = this.declaredFor.get(type);
    if (!done) {
      const declared = this.declaredFor;
      done = (async () => {
        let channel: Awaited<ReturnType<typeof connection.createChannel>> | null = null;
        let step = 'open a channel';
        try {
          channel = await connection.createChannel();
          channel.on('error', () => undefined);
          for (const queue of queues) {
            await declareConsumerQueues(channel, queue, [type], this.opts, (what) => {
              step = what;
            });
          }
        } catch (err) {
          this.logger.error(
            `Could not declare the consumer queues of ${type} (${queues.join(', ')}): could not ${step}: ${errorMessage(err)}. ` +
              'Publishing goes on; the event reaches only consumers whose queues exist.',
          );
        } finally {
          await channel?.close().catch(() => undefined);
        }
      })();
      declared.set(type, done);
    }
    return done;
  }

  async subscribe(
    consumer: string,
    events: EventContract<any>[],
    handler: EventHandler,
    opts: SubscribeOptions = {},
  ): Promise<void> {
    validateConsumerName(consumer);
    if (events.length === 0) throw new Error(`subscribe(${consumer}) needs at least one event`);
    if (this.link.isClosing) throw new Error('AmqpEventBus is closed');
    let state = this.consumers.get(consumer);
    if (!state) {
      state = new AmqpConsumer(
        consumer,
        opts.prefetch ?? this.opts.prefetch,
        opts.maxRetries ?? this.opts.maxRetries,
        this.opts,
        this.link,
        this.settler,
      );
      this.consumers.set(consumer, state);
    }
    state.add(events, handler);
    // Resolves once the consumer consumes, or once its set-up failed: the failure is logged, retried
    // in the background and reported by check(), so one bad queue never stops the app's start-up.
    await state.sync();
  }

  override consumerNames(): string[] {
    return [...this.consumers.keys()];
  }

  /**
   * Messages in each consumer's `<consumer>.dlq` now (metrics), on a channel of its own; a queue
   * that cannot be inspected is left out. Empty while disconnected.
   */
  override async deadLetterDepths(): Promise<Record<string, number>> {
    const connection = this.link.current;
    const depths: Record<string, number> = {};
    if (!connection || this.consumers.size === 0) return depths;
    let channel: Awaited<ReturnType<typeof connection.createChannel>> | null = null;
    try {
      for (const name of this.consumers.keys()) {
        // A failed check closes the channel: open a new one for the next queue.
        if (!channel) {
          channel = await connection.createChannel();
          channel.on('error', () => undefined);
        }
        try {
          depths[name] = (await channel.checkQueue(`${name}.dlq`)).messageCount;
        } catch {
          channel = null;
        }
      }
    } catch {
      // Connection lost meanwhile: report what was read.
    } finally {
      await channel?.close().catch(() => undefined);
    }
    return depths;
  }

  /**
   * Readiness. Throws `BrokerUnavailableError` while there is no connection (nothing can be
   * published), and a plain `Error` naming each consumer that is not consuming and the broker's
   * reason while publishing works (see the README, "Readiness").
   */
  async check(): Promise<void> {
    if (!this.connected) throw new BrokerUnavailableError(this.link.unavailableMessage());
    const failing = [...this.consumers.values()].map((c) => c.problem).filter((p): p is string => p !== null);
    if (failing.length === 0) return;
    throw new Error(
      `RabbitMQ is connected and publishing works, but ${failing.length} consumer(s) are not consuming: ${failing.join('; ')}`,
    );
  }

  async close(): Promise<void> {
    if (this.link.isClosing) return;
    this.link.beginClose();
    const consumers = [...this.consumers.values()];
    for (const c of consumers) c.clearRetry();
    // 1. Stop taking new messages: the consumers that consume now at once (before any await, so no
    //    handler finishing meanwhile can ack its way to the next message), then those whose set-up
    //    was under way (later queued set-ups see the bus closing and do nothing).
    const cancelled = new Set<string>();
    const cancelConsuming = () => Promise.all(consumers.map((c) => c.cancel(cancelled)));
    const cancelling = cancelConsuming();
    await this.link.settled().catch(() => undefined);
    await Promise.all(consumers.map((c) => c.idle()));
    await cancelling;
    await cancelConsuming();
    // 2. Let in-flight handlers finish (their acks still need the channels).
    const inFlight = consumers.flatMap((c) => c.running());
    if (inFlight.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          this.logger.warn(`Closing with handlers still running after ${this.opts.shutdownTimeoutMs} ms; their messages return to the queue`);
          resolve();
        }, this.opts.shutdownTimeoutMs);
      });
      await Promise.race([Promise.allSettled(inFlight), timeout]);
      clearTimeout(timer);
    }
    // 3. Close; unacked messages go back to their queues.
    for (const c of consumers) c.reset();
    await this.link.end();
  }
}
