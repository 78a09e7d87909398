import { Logger } from '@nestjs/common';
import * as amqp from 'amqplib';
import type { ChannelModel, ConfirmChannel, ConsumeMessage, Options } from 'amqplib';
import {
  createEnvelope,
  decodeEnvelope,
  encodeEnvelope,
  EventContract,
  EventEnvelope,
  PublishOptions,
} from '../contracts/event-contract';
import {
  BrokerUnavailableError,
  DEFAULT_MAX_RETRIES,
  DEFAULT_PREFETCH,
  EventBus,
  EventHandler,
  retryDelay,
  SubscribeOptions,
  validateConsumerName,
} from '../event-bus';
import { runInEventContext, withContextCorrelation } from '../log-context';

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
  /** First reconnect delay, doubled per failed attempt. Default 250 ms. */
  reconnectDelayMs?: number;
  /** Cap of the reconnect delay. Default 30 s. */
  maxReconnectDelayMs?: number;
  /** How long `publish` waits for the broker's confirm. Default 10 s. */
  publishTimeoutMs?: number;
  /** How long `close` waits for in-flight handlers before closing channels anyway. Default 10 s. */
  shutdownTimeoutMs?: number;
  /** AMQP heartbeat in seconds, unless the URL sets one. Default 15. */
  heartbeatSeconds?: number;
}

interface ConsumerState {
  name: string;
  types: Set<string>;
  handlers: Map<string, EventHandler>;
  prefetch: number;
  maxRetries: number;
  channel: ConfirmChannel | null;
  consumerTag: string | null;
  inFlight: Set<Promise<void>>;
}

/** Headers RabbitMQ adds when dead-lettering; not copied onto republished messages. */
const BROKER_HEADERS = /^x-(death|first-death-|last-death-)/;

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

/**
 * EventBus on RabbitMQ.
 *
 * Topology: durable topic exchange `platform.events`; per consumer a durable queue `<consumer>`
 * bound to each of its event types, a durable `<consumer>.retry` queue whose messages expire back
 * into `<consumer>` (per-message TTL = backoff delay), and a durable `<consumer>.dlq` bound to the
 * topic exchange `platform.dlx` with key `<consumer>`. Publishing uses confirm channels.
 * The connection is re-established with exponential backoff; topology and consumers are
 * re-asserted on every connect. `publish` never waits for a reconnect: it fails fast.
 */
export class AmqpEventBus extends EventBus {
  private readonly logger = new Logger('AmqpEventBus');
  private readonly opts: Required<AmqpEventBusOptions>;
  private readonly consumers = new Map<string, ConsumerState>();
  private connection: ChannelModel | null = null;
  private publishChannel: ConfirmChannel | null = null;
  private connecting: Promise<void> | null = null;
  /** Serialises consumer set-up so two subscribe calls never open two channels for one queue. */
  private subscriptions: Promise<void> = Promise.resolve();
  private reconnectTimer: NodeJS.Timeout | null = null;
  private reconnectAttempt = 0;
  private lastError: string | null = null;
  private started = false;
  private closing = false;

  constructor(options: AmqpEventBusOptions) {
    super();
    this.opts = {
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
      // An option given as undefined keeps its default.
      ...(Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as AmqpEventBusOptions),
    };
  }

  /** True while a connection with its publish channel is open. */
  get connected(): boolean {
    return this.connection !== null && this.publishChannel !== null;
  }

  /** The underlying amqplib connection (tests, diagnostics); null while disconnected. */
  get rawConnection(): ChannelModel | null {
    return this.connection;
  }

  /** Connects (first attempt awaited, failures retried in the background). Never throws. */
  async start(): Promise<void> {
    if (this.closing) throw new Error('AmqpEventBus is closed');
    if (this.started) return this.connecting ?? undefined;
    this.started = true;
    await this.connect();
  }

  /** Resolves once connected (tests and start-up code that must wait for the broker). */
  async waitUntilConnected(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.connected) {
      if (this.closing) throw new Error('AmqpEventBus is closed');
      if (Date.now() > deadline) throw new BrokerUnavailableError(this.unavailableMessage());
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async publish<T>(event: EventContract<T>, data: T, opts?: PublishOptions): Promise<void> {
    await this.publishEnvelope(createEnvelope(event, data, this.opts.source, withContextCorrelation(opts)));
  }

  async publishEnvelope(envelope: EventEnvelope<unknown>): Promise<void> {
    const channel = this.publishChannel;
    if (!channel || !this.connection) throw new BrokerUnavailableError(this.unavailableMessage());
    const headers: Record<string, unknown> = {};
    if (envelope.correlationId) headers['x-correlation-id'] = envelope.correlationId;
    await this.confirmPublish(channel, this.opts.exchange, envelope.type, encodeEnvelope(envelope), {
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

  async subscribe(
    consumer: string,
    events: EventContract<any>[],
    handler: EventHandler,
    opts: SubscribeOptions = {},
  ): Promise<void> {
    validateConsumerName(consumer);
    if (events.length === 0) throw new Error(`subscribe(${consumer}) needs at least one event`);
    if (this.closing) throw new Error('AmqpEventBus is closed');
    let state = this.consumers.get(consumer);
    const newTypes = events.map((e) => e.type).filter((t) => !state?.types.has(t));
    if (!state) {
      state = {
        name: consumer,
        types: new Set(),
        handlers: new Map(),
        prefetch: opts.prefetch ?? this.opts.prefetch,
        maxRetries: opts.maxRetries ?? this.opts.maxRetries,
        channel: null,
        consumerTag: null,
        inFlight: new Set(),
      };
      this.consumers.set(consumer, state);
    }
    for (const e of events) {
      state.types.add(e.type);
      state.handlers.set(e.type, handler);
    }
    const target = state;
    const run = this.subscriptions.then(async () => {
      await this.connecting;
      // While disconnected the consumer is set up on the next connect.
      const connection = this.connection;
      if (!connection || this.closing) return;
      try {
        if (!target.channel) {
          await this.setupConsumer(connection, target);
        } else {
          for (const type of newTypes) await target.channel.bindQueue(consumer, this.opts.exchange, type);
        }
      } catch (err) {
        // Lost the connection meanwhile: the reconnect sets the consumer up with all its events.
        if (this.connection === connection) throw err;
      }
    });
    this.subscriptions = run.catch(() => undefined);
    await run;
  }

  async check(): Promise<void> {
    if (!this.connected) throw new BrokerUnavailableError(this.unavailableMessage());
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    await this.connecting?.catch(() => undefined);
    // A consumer being set up right now would start consuming after the cancels below: let it finish
    // first (later queued set-ups see `closing` and do nothing).
    await this.subscriptions;
    // 1. Stop taking new messages.
    for (const c of this.consumers.values()) {
      if (c.channel && c.consumerTag) await c.channel.cancel(c.consumerTag).catch(() => undefined);
    }
    // 2. Let in-flight handlers finish (their acks still need the channels).
    const inFlight = [...this.consumers.values()].flatMap((c) => [...c.inFlight]);
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
    const connection = this.connection;
    this.connection = null;
    this.publishChannel = null;
    for (const c of this.consumers.values()) {
      c.channel = null;
      c.consumerTag = null;
    }
    if (connection) await connection.close().catch(() => undefined);
  }

  private unavailableMessage(): string {
    const why = this.lastError ? `: ${this.lastError}` : '';
    const state = this.closing ? 'closed' : this.started ? 'reconnecting' : 'not started';
    return (
      `RabbitMQ at ${redactUrl(this.opts.url)} is not connected (${state})${why}. ` +
      'Publish through the Outbox to keep events across broker outages.'
    );
  }

  private connect(): Promise<void> {
    this.connecting ??= this.connectOnce().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private connectionUrl(): string {
    try {
      const u = new URL(this.opts.url);
      if (!u.searchParams.has('heartbeat')) u.searchParams.set('heartbeat', String(this.opts.heartbeatSeconds));
      return u.toString();
    } catch {
      return this.opts.url;
    }
  }

  private async connectOnce(): Promise<void> {
    if (this.closing) return;
    let connection: ChannelModel;
    try {
      connection = await amqp.connect(this.connectionUrl(), { timeout: 10_000 });
    } catch (err) {
      this.lastError = (err as Error).message || String(err);
      this.scheduleReconnect();
      return;
    }
    connection.on('error', (err: Error) => {
      this.lastError = err.message;
      this.logger.warn(`RabbitMQ connection error: ${err.message}`);
    });
    connection.on('close', (err?: Error) => this.onConnectionClosed(connection, err));
    connection.on('handler-error', (err: Error, event: string) =>
      this.logger.error(`Error in the connection "${event}" listener: ${err.message}`),
    );
    connection.on('blocked', (reason: string) => this.logger.warn(`RabbitMQ blocked publishing: ${reason}`));
    connection.on('unblocked', () => this.logger.log('RabbitMQ unblocked publishing'));
    if (this.closing) {
      // close() ran while connecting: consume nothing, its handlers would not be waited for.
      await connection.close().catch(() => undefined);
      return;
    }
    try {
      const channel = await this.openChannel(connection, 'publish');
      await channel.assertExchange(this.opts.exchange, 'topic', { durable: true });
      await channel.assertExchange(this.opts.dlx, 'topic', { durable: true });
      for (const c of this.consumers.values()) {
        if (this.closing) break;
        await this.setupConsumer(connection, c);
      }
      if (this.closing) {
        await connection.close().catch(() => undefined);
        return;
      }
      this.connection = connection;
      this.publishChannel = channel;
      this.lastError = null;
      if (this.reconnectAttempt > 0) this.logger.log(`Reconnected to RabbitMQ at ${redactUrl(this.opts.url)}`);
      else this.logger.log(`Connected to RabbitMQ at ${redactUrl(this.opts.url)}`);
      this.reconnectAttempt = 0;
    } catch (err) {
      this.lastError = (err as Error).message || String(err);
      this.logger.error(`Setting up RabbitMQ topology failed: ${this.lastError}`);
      for (const c of this.consumers.values()) {
        c.channel = null;
        c.consumerTag = null;
      }
      await connection.close().catch(() => undefined);
      this.scheduleReconnect();
    }
  }

  private onConnectionClosed(connection: ChannelModel, err?: Error): void {
    if (this.connection !== connection) return; // a failed attempt or our own close()
    this.connection = null;
    this.publishChannel = null;
    for (const c of this.consumers.values()) {
      c.channel = null;
      c.consumerTag = null;
    }
    if (this.closing) return;
    this.lastError = err?.message ?? 'connection closed';
    this.logger.warn(`RabbitMQ connection lost (${this.lastError}); reconnecting`);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closing || this.reconnectTimer) return;
    this.reconnectAttempt++;
    const base = retryDelay(this.reconnectAttempt, this.opts.reconnectDelayMs, this.opts.maxReconnectDelayMs);
    const delay = Math.round(base * (0.8 + Math.random() * 0.4));
    if (this.reconnectAttempt === 1 || this.reconnectAttempt % 10 === 0) {
      this.logger.warn(
        `RabbitMQ at ${redactUrl(this.opts.url)} unreachable (${this.lastError}); retry ${this.reconnectAttempt} in ${delay} ms`,
      );
    }
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      void this.connect();
    }, delay);
    this.reconnectTimer.unref();
  }

  /**
   * A confirm channel whose unexpected close (a channel-level error such as a topology conflict)
   * closes the connection, so the whole client state is rebuilt by the reconnect loop.
   */
  private async openChannel(connection: ChannelModel, purpose: string): Promise<ConfirmChannel> {
    const channel = await connection.createConfirmChannel();
    channel.on('error', (err: Error) => {
      this.lastError = err.message;
      this.logger.warn(`RabbitMQ ${purpose} channel error: ${err.message}`);
    });
    channel.on('handler-error', (err: Error, event: string) =>
      this.logger.error(`Error in the ${purpose} channel "${event}" listener: ${err.message}`),
    );
    channel.on('close', () => {
      // When the whole connection went down, its 'close' follows in the same tick: let that handle it.
      setImmediate(() => {
        if (this.closing || this.connection !== connection) return;
        this.logger.warn(`RabbitMQ ${purpose} channel closed unexpectedly; reconnecting`);
        void connection.close().catch(() => undefined);
      });
    });
    return channel;
  }

  private async setupConsumer(connection: ChannelModel, c: ConsumerState): Promise<void> {
    const channel = await this.openChannel(connection, `consumer ${c.name}`);
    await channel.prefetch(c.prefetch);
    await channel.assertQueue(c.name, {
      durable: true,
      arguments: { 'x-dead-letter-exchange': this.opts.dlx, 'x-dead-letter-routing-key': c.name },
    });
    await channel.assertQueue(`${c.name}.retry`, {
      durable: true,
      arguments: { 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': c.name },
    });
    await channel.assertQueue(`${c.name}.dlq`, { durable: true });
    await channel.bindQueue(`${c.name}.dlq`, this.opts.dlx, c.name);
    for (const type of c.types) await channel.bindQueue(c.name, this.opts.exchange, type);
    const { consumerTag } = await channel.consume(c.name, (msg) => this.onMessage(connection, c, channel, msg));
    c.channel = channel;
    c.consumerTag = consumerTag;
  }

  private onMessage(connection: ChannelModel, c: ConsumerState, channel: ConfirmChannel, msg: ConsumeMessage | null): void {
    if (msg === null) {
      // The broker cancelled the consumer (queue deleted): rebuild everything.
      if (!this.closing && this.connection === connection) {
        this.logger.warn(`RabbitMQ cancelled consumer ${c.name}; reconnecting`);
        void connection.close().catch(() => undefined);
      }
      return;
    }
    const work = this.handle(c, channel, msg).catch((err: Error) =>
      this.logger.error(`Consumer ${c.name} could not settle a message: ${err.message}`),
    );
    c.inFlight.add(work);
    void work.finally(() => c.inFlight.delete(work));
  }

  private async handle(c: ConsumerState, channel: ConfirmChannel, msg: ConsumeMessage): Promise<void> {
    const headers = msg.properties.headers ?? {};
    const retries = Number(headers['x-retries'] ?? 0) || 0;
    const correlationId =
      (typeof headers['x-correlation-id'] === 'string' ? headers['x-correlation-id'] : undefined) ??
      (msg.properties.correlationId as string | undefined);
    let envelope: EventEnvelope<unknown>;
    try {
      envelope = decodeEnvelope(msg.content, correlationId);
    } catch (err) {
      this.logger.error(`Consumer ${c.name} received a malformed message, dead-lettered: ${(err as Error).message}`);
      await this.republish(c, channel, msg, this.opts.dlx, c.name, { 'x-error': (err as Error).message });
      return;
    }
    const handler = c.handlers.get(envelope.type);
    if (!handler) {
      this.logger.warn(`Consumer ${c.name} has no handler for ${envelope.type}; event ${envelope.id} dropped`);
      this.settle(channel, msg, 'ack');
      return;
    }
    // Logs of the handler and of its retry or dead-lettering carry the event's correlation id.
    await runInEventContext(envelope, () => this.runHandler(c, channel, msg, envelope, handler, retries));
  }

  private async runHandler(
    c: ConsumerState,
    channel: ConfirmChannel,
    msg: ConsumeMessage,
    envelope: EventEnvelope<unknown>,
    handler: EventHandler,
    retries: number,
  ): Promise<void> {
    try {
      await handler(envelope);
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      if (retries >= c.maxRetries) {
        this.logger.error(
          `Consumer ${c.name} failed on ${envelope.type} ${envelope.id} after ${retries} retries, dead-lettered to ${c.name}.dlq: ${error}`,
        );
        await this.republish(c, channel, msg, this.opts.dlx, c.name, { 'x-retries': retries, 'x-error': error.slice(0, 1000) });
        return;
      }
      const attempt = retries + 1;
      const delay = retryDelay(attempt, this.opts.retryDelayMs, this.opts.maxRetryDelayMs);
      this.logger.warn(
        `Consumer ${c.name} failed on ${envelope.type} ${envelope.id} (retry ${attempt}/${c.maxRetries} in ${delay} ms): ${error}`,
      );
      await this.republish(c, channel, msg, '', `${c.name}.retry`, { 'x-retries': attempt, 'x-error': error.slice(0, 1000) }, delay);
      return;
    }
    this.settle(channel, msg, 'ack');
  }

  /**
   * Moves a message to the retry queue or the dead-letter exchange: publish (confirmed) first,
   * then ack the original. If the publish fails the original is requeued, so nothing is lost.
   */
  private async republish(
    c: ConsumerState,
    channel: ConfirmChannel,
    msg: ConsumeMessage,
    exchange: string,
    routingKey: string,
    extraHeaders: Record<string, unknown>,
    expirationMs?: number,
  ): Promise<void> {
    const headers: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(msg.properties.headers ?? {})) if (!BROKER_HEADERS.test(k)) headers[k] = v;
    if (exchange === this.opts.dlx) headers['x-original-routing-key'] = msg.fields.routingKey;
    Object.assign(headers, extraHeaders);
    const p = msg.properties;
    const options: Options.Publish = {
      persistent: true,
      contentType: p.contentType,
      messageId: p.messageId,
      type: p.type,
      appId: p.appId,
      timestamp: p.timestamp,
      correlationId: p.correlationId,
      headers,
    };
    if (expirationMs !== undefined) options.expiration = String(expirationMs);
    try {
      await this.confirmPublish(channel, exchange, routingKey, msg.content, options);
    } catch (err) {
      this.logger.warn(`Consumer ${c.name} could not move a message to ${routingKey}: ${(err as Error).message}; requeued`);
      this.settle(channel, msg, 'requeue');
      return;
    }
    this.settle(channel, msg, 'ack');
  }

  /** Acks or requeues; on a closed channel the broker already requeued the message. */
  private settle(channel: ConfirmChannel, msg: ConsumeMessage, how: 'ack' | 'requeue'): void {
    try {
      if (how === 'ack') channel.ack(msg);
      else channel.nack(msg, false, true);
    } catch {
      // Channel gone: the unacked message is redelivered by the broker.
    }
  }

  private confirmPublish(
    channel: ConfirmChannel,
    exchange: string,
    routingKey: string,
    content: Buffer,
    options: Options.Publish,
  ): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new BrokerUnavailableError(`RabbitMQ did not confirm the message within ${this.opts.publishTimeoutMs} ms`)),
        this.opts.publishTimeoutMs,
      );
      try {
        channel.publish(exchange, routingKey, content, options, (err: unknown) => {
          clearTimeout(timer);
          if (err) reject(err instanceof Error ? err : new Error(`RabbitMQ refused the message: ${String(err)}`));
          else resolve();
        });
      } catch (err) {
        clearTimeout(timer);
        reject(err instanceof Error && /closed/i.test(err.message) ? new BrokerUnavailableError(this.unavailableMessage()) : err);
      }
    });
  }
}
