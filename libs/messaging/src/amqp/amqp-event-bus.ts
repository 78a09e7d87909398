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
}

interface ConsumerState {
  name: string;
  types: Set<string>;
  handlers: Map<string, EventHandler>;
  prefetch: number;
  maxRetries: number;
  /** The consumer's own channel while it consumes; null while disconnected or not (yet) set up. */
  channel: ConfirmChannel | null;
  consumerTag: string | null;
  /** Event types bound to the queue by the set-up of the current channel. */
  bound: Set<string>;
  inFlight: Set<Promise<void>>;
  /** Tail of this consumer's set-up and bind operations: one at a time, so a queue never gets two channels. */
  ops: Promise<void>;
  /** Why the consumer is not consuming (last set-up failure or lost channel); null once it consumes. */
  failure: string | null;
  /** Failed set-up attempts in a row on the current connection (drives the retry backoff). */
  failedAttempts: number;
  retryTimer: NodeJS.Timeout | null;
}

/** Headers RabbitMQ adds when dead-lettering; not copied onto republished messages. */
const BROKER_HEADERS = /^x-(death|first-death-|last-death-)/;

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

function errorMessage(err: unknown): string {
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

/**
 * EventBus on RabbitMQ.
 *
 * Topology: durable topic exchange `platform.events`; per consumer a durable queue `<consumer>`
 * bound to each of its event types, a durable `<consumer>.retry` queue whose messages expire back
 * into `<consumer>` (per-message TTL = backoff delay), and a durable `<consumer>.dlq` bound to the
 * topic exchange `platform.dlx` with key `<consumer>`. Publishing uses confirm channels.
 * The connection is re-established with exponential backoff; topology and consumers are
 * re-asserted on every connect. `publish` never waits for a reconnect: it fails fast.
 *
 * Publishing and each consumer are isolated from one another: the connection counts as up once
 * its publish channel and the exchanges are in place, and every consumer is then set up on its own
 * channel. A consumer the broker refuses (its queue exists with other arguments, access refused)
 * or whose channel closes is retried on its own with backoff and reported by `check()`, while
 * publishing and the other consumers go on.
 */
export class AmqpEventBus extends EventBus {
  private readonly logger = new Logger('AmqpEventBus');
  private readonly opts: Required<AmqpEventBusOptions>;
  private readonly consumers = new Map<string, ConsumerState>();
  private connection: ChannelModel | null = null;
  private publishChannel: ConfirmChannel | null = null;
  private connecting: Promise<void> | null = null;
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

  /**
   * Connects (first attempt awaited, failures retried in the background). Consumers subscribed
   * before have had their first set-up attempt when it resolves (a failed one is retried in the
   * background too). Never throws.
   */
  async start(): Promise<void> {
    if (this.closing) throw new Error('AmqpEventBus is closed');
    if (this.started) return this.connecting ?? undefined;
    this.started = true;
    await this.connect();
    await Promise.all([...this.consumers.values()].map((c) => c.ops));
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
    if (!state) {
      state = {
        name: consumer,
        types: new Set(),
        handlers: new Map(),
        prefetch: opts.prefetch ?? this.opts.prefetch,
        maxRetries: opts.maxRetries ?? this.opts.maxRetries,
        channel: null,
        consumerTag: null,
        bound: new Set(),
        inFlight: new Set(),
        ops: Promise.resolve(),
        failure: null,
        failedAttempts: 0,
        retryTimer: null,
      };
      this.consumers.set(consumer, state);
    }
    for (const e of events) {
      state.types.add(e.type);
      state.handlers.set(e.type, handler);
    }
    // Resolves once the consumer consumes, or once its set-up failed: the failure is logged, retried
    // in the background and reported by check(), so one bad queue never stops the app's start-up.
    await this.syncConsumer(state);
  }

  /**
   * Readiness. Throws `BrokerUnavailableError` while there is no connection (nothing can be
   * published), and a plain `Error` naming each consumer that is not consuming and the broker's
   * reason while publishing works (see the README, "Readiness").
   */
  async check(): Promise<void> {
    if (!this.connected) throw new BrokerUnavailableError(this.unavailableMessage());
    const failing = [...this.consumers.values()].filter((c) => !c.channel && c.failure);
    if (failing.length === 0) return;
    const which = failing.map((c) => `consumer "${c.name}" ${c.failure} (retrying, attempt ${c.failedAttempts})`);
    throw new Error(
      `RabbitMQ is connected and publishing works, but ${failing.length} consumer(s) are not consuming: ${which.join('; ')}`,
    );
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    for (const c of this.consumers.values()) this.clearConsumerRetry(c);
    // 1. Stop taking new messages: the consumers that consume now at once (before any await, so no
    //    handler finishing meanwhile can ack its way to the next message), then those whose set-up
    //    was under way (later queued set-ups see `closing` and do nothing).
    const cancelled = new Set<string>();
    const cancelConsuming = () =>
      Promise.all(
        [...this.consumers.values()].map((c) => {
          if (!c.channel || !c.consumerTag || cancelled.has(c.consumerTag)) return undefined;
          cancelled.add(c.consumerTag);
          return c.channel.cancel(c.consumerTag).catch(() => undefined);
        }),
      );
    const cancelling = cancelConsuming();
    await this.connecting?.catch(() => undefined);
    await Promise.all([...this.consumers.values()].map((c) => c.ops));
    await cancelling;
    await cancelConsuming();
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
    for (const c of this.consumers.values()) this.resetConsumer(c);
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
      this.lastError = errorMessage(err);
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
      // Publishing needs only this channel and the exchanges; consumers are set up afterwards, each
      // on its own, so a consumer the broker refuses never keeps the bus from connecting.
      const channel = await connection.createConfirmChannel();
      this.watchChannel(channel, 'publish', (reason) => this.onPublishChannelClosed(connection, reason));
      await channel.assertExchange(this.opts.exchange, 'topic', { durable: true });
      await channel.assertExchange(this.opts.dlx, 'topic', { durable: true });
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
      this.lastError = errorMessage(err);
      this.logger.error(`Setting up the RabbitMQ publish channel and exchanges failed: ${this.lastError}`);
      await connection.close().catch(() => undefined);
      this.scheduleReconnect();
      return;
    }
    for (const c of this.consumers.values()) void this.syncConsumer(c);
  }

  private onConnectionClosed(connection: ChannelModel, err?: Error): void {
    if (this.connection !== connection) return; // a failed attempt or our own close()
    this.connection = null;
    this.publishChannel = null;
    for (const c of this.consumers.values()) {
      this.resetConsumer(c);
      this.clearConsumerRetry(c);
      c.failedAttempts = 0;
    }
    if (this.closing) return;
    this.lastError = err?.message ?? 'connection closed';
    this.logger.warn(`RabbitMQ connection lost (${this.lastError}); reconnecting`);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closing || this.reconnectTimer) return;
    this.reconnectAttempt++;
    const delay = this.backoff(this.reconnectAttempt);
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

  private backoff(attempt: number): number {
    const base = retryDelay(attempt, this.opts.reconnectDelayMs, this.opts.maxReconnectDelayMs);
    return Math.round(base * (0.8 + Math.random() * 0.4));
  }

  /**
   * Listens on a channel so that its errors never crash the process; `onUnexpectedClose` runs with
   * the broker's reason when it closes without the whole connection going down (a channel-level
   * error), and logs it: an 'error' is always followed by 'close', so it is not logged twice, and a
   * failing consumer's retries are not logged each time.
   */
  private watchChannel(channel: ConfirmChannel, purpose: string, onUnexpectedClose: (reason: string) => void): void {
    let reason = 'closed by the broker';
    channel.on('error', (err: Error) => {
      reason = err.message;
    });
    channel.on('handler-error', (err: Error, event: string) =>
      this.logger.error(`Error in the ${purpose} channel "${event}" listener: ${err.message}`),
    );
    // When the whole connection went down, its 'close' follows in the same tick: let that handle it.
    channel.on('close', () => setImmediate(() => onUnexpectedClose(reason)));
  }

  /** Without its publish channel the bus cannot publish: rebuild the connection (this re-asserts the exchanges). */
  private onPublishChannelClosed(connection: ChannelModel, reason: string): void {
    if (this.closing || this.connection !== connection) return;
    this.lastError = reason;
    this.logger.warn(`RabbitMQ publish channel closed unexpectedly (${reason}); reconnecting`);
    void connection.close().catch(() => undefined);
  }

  /**
   * Brings a consumer in line with the current connection: sets it up when it has no channel, else
   * binds event types added since. Queued per consumer; never rejects (failures are retried).
   */
  private syncConsumer(c: ConsumerState): Promise<void> {
    c.ops = c.ops
      .then(async () => {
        await this.connecting;
        const connection = this.connection;
        // While disconnected the consumer is set up on the next connect.
        if (!connection || this.closing) return;
        if (c.channel) await this.bindNewTypes(c, c.channel);
        else await this.setupConsumer(connection, c);
      })
      .catch((err: unknown) => this.logger.error(`Consumer "${c.name}" set-up crashed: ${errorMessage(err)}`));
    return c.ops;
  }

  private async bindNewTypes(c: ConsumerState, channel: ConfirmChannel): Promise<void> {
    try {
      for (const type of c.types) {
        if (c.bound.has(type)) continue;
        await channel.bindQueue(c.name, this.opts.exchange, type);
        c.bound.add(type);
      }
    } catch (err) {
      // The channel closed under the bind: its close handler sets the consumer up again, with every type.
      this.logger.warn(`Consumer "${c.name}" could not bind new event types (${errorMessage(err)}); setting it up again`);
    }
  }

  private async setupConsumer(connection: ChannelModel, c: ConsumerState): Promise<void> {
    let channel: ConfirmChannel | null = null;
    let step = 'open a channel';
    try {
      channel = await connection.createConfirmChannel();
      const own = channel;
      this.watchChannel(own, `consumer ${c.name}`, (reason) => this.onConsumerChannelClosed(connection, c, own, reason));
      step = 'set its prefetch';
      await channel.prefetch(c.prefetch);
      step = `declare queue "${c.name}"`;
      await channel.assertQueue(c.name, {
        durable: true,
        arguments: { 'x-dead-letter-exchange': this.opts.dlx, 'x-dead-letter-routing-key': c.name },
      });
      step = `declare queue "${c.name}.retry"`;
      await channel.assertQueue(`${c.name}.retry`, {
        durable: true,
        arguments: { 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': c.name },
      });
      step = `declare queue "${c.name}.dlq"`;
      await channel.assertQueue(`${c.name}.dlq`, { durable: true });
      step = `bind queue "${c.name}.dlq" to exchange "${this.opts.dlx}"`;
      await channel.bindQueue(`${c.name}.dlq`, this.opts.dlx, c.name);
      const bound = new Set<string>();
      for (const type of c.types) {
        step = `bind queue "${c.name}" to exchange "${this.opts.exchange}" with key "${type}"`;
        await channel.bindQueue(c.name, this.opts.exchange, type);
        bound.add(type);
      }
      step = `consume from queue "${c.name}"`;
      const { consumerTag } = await channel.consume(c.name, (msg) => this.onMessage(connection, c, own, msg));
      if (this.connection !== connection) {
        await own.close().catch(() => undefined); // the connection was lost meanwhile: the reconnect starts over
        return;
      }
      c.channel = channel;
      c.consumerTag = consumerTag;
      c.bound = bound;
      if (c.failure) {
        this.logger.log(`Consumer "${c.name}" is consuming again (after ${c.failedAttempts} failed attempt(s): ${c.failure})`);
      }
      c.failure = null;
      c.failedAttempts = 0;
    } catch (err) {
      // After a channel-level error the broker has closed the channel already; otherwise close it here.
      await channel?.close().catch(() => undefined);
      await this.onConsumerSetupFailed(connection, c, `could not ${step}: ${errorMessage(err)}`);
    }
  }

  /** Records why a consumer is not consuming, logs it clearly and retries that consumer alone. */
  private async onConsumerSetupFailed(connection: ChannelModel, c: ConsumerState, reason: string): Promise<void> {
    // A set-up cut short by a lost connection is not the consumer's fault: the reconnect starts it over.
    await new Promise((r) => setImmediate(r));
    if (this.closing || this.connection !== connection) return;
    const hint = consumerSetupHint(reason);
    const failure = hint ? `${reason}. ${hint}` : reason;
    const changed = failure !== c.failure;
    c.failure = failure;
    c.failedAttempts++;
    const delay = this.backoff(c.failedAttempts);
    // Logged when the reason changes and every 10th attempt, not on every retry of a lasting problem.
    if (changed || c.failedAttempts % 10 === 0) {
      this.logger.error(
        `Consumer "${c.name}" is not consuming: ${failure}${failure.endsWith('.') ? '' : '.'} Publishing and the other consumers go on; ` +
          `retry ${c.failedAttempts} in ${delay} ms (readiness reports it until then).`,
      );
    }
    this.scheduleConsumerRetry(connection, c, delay);
  }

  private onConsumerChannelClosed(connection: ChannelModel, c: ConsumerState, channel: ConfirmChannel, reason: string): void {
    if (this.closing || this.connection !== connection || c.channel !== channel) return;
    this.resetConsumer(c);
    void this.onConsumerSetupFailed(connection, c, `lost its channel: ${reason}`);
  }

  private scheduleConsumerRetry(connection: ChannelModel, c: ConsumerState, delay: number): void {
    if (this.closing || c.retryTimer) return;
    c.retryTimer = setTimeout(() => {
      c.retryTimer = null;
      // A new connection sets up every consumer itself.
      if (this.connection === connection) void this.syncConsumer(c);
    }, delay);
    c.retryTimer.unref();
  }

  private clearConsumerRetry(c: ConsumerState): void {
    if (c.retryTimer) clearTimeout(c.retryTimer);
    c.retryTimer = null;
  }

  private resetConsumer(c: ConsumerState): void {
    c.channel = null;
    c.consumerTag = null;
    c.bound = new Set();
  }

  private onMessage(connection: ChannelModel, c: ConsumerState, channel: ConfirmChannel, msg: ConsumeMessage | null): void {
    if (msg === null) {
      // The broker cancelled the consumer (its queue was deleted): declare it again on a new channel;
      // the old one closes once its running handlers have settled their messages.
      if (!this.closing && this.connection === connection && c.channel === channel) {
        this.logger.warn(`RabbitMQ cancelled consumer "${c.name}" (queue deleted?); declaring its queue again`);
        this.resetConsumer(c);
        const running = [...c.inFlight];
        void Promise.allSettled(running).then(() => channel.close().catch(() => undefined));
        void this.syncConsumer(c);
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
