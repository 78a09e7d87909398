import { Logger } from '@nestjs/common';
import type { ChannelModel, ConfirmChannel, ConsumeMessage } from 'amqplib';
import type { EventContract } from '../contracts/event-contract';
import type { EventHandler } from '../event-bus';
import type { AmqpConnection } from './amqp-connection';
import { consumerSetupHint, errorMessage, type ResolvedAmqpOptions } from './amqp-options';
import type { DeliveryTarget, MessageSettler } from './message-settler';
import { declareConsumerQueues } from './topology';

/**
 * One consumer's life cycle on RabbitMQ: its own confirm channel with its prefetch, its queues
 * (`<consumer>`, `<consumer>.retry`, `<consumer>.dlq`) and bindings declared on every connect, new
 * event types bound as they are subscribed, a set-up the broker refuses (or a channel that closes)
 * retried on its own with the reconnect backoff and reported by `failure`, a consumer the broker
 * cancels (queue deleted) declared again on a new channel, and its in-flight deliveries tracked for
 * a graceful close. Messages are handed to the `MessageSettler`.
 */
export class AmqpConsumer implements DeliveryTarget {
  private readonly logger = new Logger('AmqpEventBus');
  private readonly types = new Set<string>();
  private readonly handlers = new Map<string, EventHandler>();
  /** The consumer's own channel while it consumes; null while disconnected or not (yet) set up. */
  private channel: ConfirmChannel | null = null;
  private consumerTag: string | null = null;
  /** Event types bound to the queue by the set-up of the current channel. */
  private bound = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();
  /** Tail of this consumer's set-up and bind operations: one at a time, so a queue never gets two channels. */
  private ops: Promise<void> = Promise.resolve();
  /** Why the consumer is not consuming (last set-up failure or lost channel); null once it consumes. */
  private failure: string | null = null;
  /** Failed set-up attempts in a row on the current connection (drives the retry backoff). */
  private failedAttempts = 0;
  private retryTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly name: string,
    readonly prefetch: number,
    readonly maxRetries: number,
    private readonly opts: ResolvedAmqpOptions,
    private readonly link: AmqpConnection,
    private readonly settler: MessageSettler,
  ) {}

  handlerFor(type: string): EventHandler | undefined {
    return this.handlers.get(type);
  }

  add(events: EventContract<unknown>[], handler: EventHandler): void {
    for (const e of events) {
      this.types.add(e.type);
      this.handlers.set(e.type, handler);
    }
  }

  /** Why it is not consuming, when its last set-up attempt failed (readiness); null otherwise. */
  get problem(): string | null {
    return !this.channel && this.failure ? `consumer "${this.name}" ${this.failure} (retrying, attempt ${this.failedAttempts})` : null;
  }

  /** Resolves once the set-up or bind operations queued so far are over. */
  idle(): Promise<void> {
    return this.ops;
  }

  /** Deliveries being handled now. */
  running(): Promise<void>[] {
    return [...this.inFlight];
  }

  /**
   * Brings the consumer in line with the current connection: sets it up when it has no channel, else
   * binds event types added since. Queued per consumer; never rejects (failures are retried).
   */
  sync(): Promise<void> {
    this.ops = this.ops
      .then(async () => {
        await this.link.settled();
        const connection = this.link.current;
        // While disconnected the consumer is set up on the next connect.
        if (!connection || this.link.isClosing) return;
        if (this.channel) await this.bindNewTypes(this.channel);
        else await this.setup(connection);
      })
      .catch((err: unknown) => this.logger.error(`Consumer "${this.name}" set-up crashed: ${errorMessage(err)}`));
    return this.ops;
  }

  /** Cancels consuming (no new messages) unless `cancelled` already holds its tag. */
  cancel(cancelled: Set<string>): Promise<unknown> | undefined {
    if (!this.channel || !this.consumerTag || cancelled.has(this.consumerTag)) return undefined;
    cancelled.add(this.consumerTag);
    return this.channel.cancel(this.consumerTag).catch(() => undefined);
  }

  /** The connection is gone: forget the channel, and start the retry count over on the next one. */
  onConnectionLost(): void {
    this.reset();
    this.clearRetry();
    this.failedAttempts = 0;
  }

  clearRetry(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  reset(): void {
    this.channel = null;
    this.consumerTag = null;
    this.bound = new Set();
  }

  private async bindNewTypes(channel: ConfirmChannel): Promise<void> {
    try {
      for (const type of this.types) {
        if (this.bound.has(type)) continue;
        await channel.bindQueue(this.name, this.opts.exchange, type);
        this.bound.add(type);
      }
    } catch (err) {
      // The channel closed under the bind: its close handler sets the consumer up again, with every type.
      this.logger.warn(`Consumer "${this.name}" could not bind new event types (${errorMessage(err)}); setting it up again`);
    }
  }

  private async setup(connection: ChannelModel): Promise<void> {
    const name = this.name;
    let channel: ConfirmChannel | null = null;
    let step = 'open a channel';
    try {
      channel = await connection.createConfirmChannel();
      const own = channel;
      this.link.watchChannel(own, `consumer ${name}`, (reason) => this.onChannelClosed(connection, own, reason));
      step = 'set its prefetch';
      await channel.prefetch(this.prefetch);
      const bound = await declareConsumerQueues(channel, name, this.types, this.opts, (what) => {
        step = what;
      });
      step = `consume from queue "${name}"`;
      const { consumerTag } = await channel.consume(name, (msg) => this.onMessage(connection, own, msg));
      if (this.link.current !== connection) {
        await own.close().catch(() => undefined); // the connection was lost meanwhile: the reconnect starts over
        return;
      }
      this.channel = channel;
      this.consumerTag = consumerTag;
      this.bound = bound;
      if (this.failure) {
        this.logger.log(`Consumer "${name}" is consuming again (after ${this.failedAttempts} failed attempt(s): ${this.failure})`);
      }
      this.failure = null;
      this.failedAttempts = 0;
    } catch (err) {
      // After a channel-level error the broker has closed the channel already; otherwise close it here.
      await channel?.close().catch(() => undefined);
      await this.onSetupFailed(connection, `could not ${step}: ${errorMessage(err)}`);
    }
  }

  /** Records why the consumer is not consuming, logs it clearly and retries it alone. */
  private async onSetupFailed(connection: ChannelModel, reason: string): Promise<void> {
    // A set-up cut short by a lost connection is not the consumer's fault: the reconnect starts it over.
    await new Promise((r) => setImmediate(r));
    if (this.link.isClosing || this.link.current !== connection) return;
    const hint = consumerSetupHint(reason);
    const failure = hint ? `${reason}. ${hint}` : reason;
    const changed = failure !== this.failure;
    this.failure = failure;
    this.failedAttempts++;
    const delay = this.link.backoff(this.failedAttempts);
    // Logged when the reason changes and every 10th attempt, not on every retry of a lasting problem.
    if (changed || this.failedAttempts % 10 === 0) {
      this.logger.error(
        `Consumer "${this.name}" is not consuming: ${failure}${failure.endsWith('.') ? '' : '.'} Publishing and the other consumers go on; ` +
          `retry ${this.failedAttempts} in ${delay} ms (readiness reports it until then).`,
      );
    }
    this.scheduleRetry(connection, delay);
  }

  private onChannelClosed(connection: ChannelModel, channel: ConfirmChannel, reason: string): void {
    if (this.link.isClosing || this.link.current !== connection || this.channel !== channel) return;
    this.reset();
    void this.onSetupFailed(connection, `lost its channel: ${reason}`);
  }

  private scheduleRetry(connection: ChannelModel, delay: number): void {
    if (this.link.isClosing || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      // A new connection sets up every consumer itself.
      if (this.link.current === connection) void this.sync();
    }, delay);
    this.retryTimer.unref();
  }

  private onMessage(connection: ChannelModel, channel: ConfirmChannel, msg: ConsumeMessage | null): void {
    if (msg === null) {
      // The broker cancelled the consumer (its queue was deleted): declare it again on a new channel;
      // the old one closes once its running handlers have settled their messages.
      if (!this.link.isClosing && this.link.current === connection && this.channel === channel) {
        this.logger.warn(`RabbitMQ cancelled consumer "${this.name}" (queue deleted?); declaring its queue again`);
        this.reset();
        const running = [...this.inFlight];
        void Promise.allSettled(running).then(() => channel.close().catch(() => undefined));
        void this.sync();
      }
      return;
    }
    const work = this.settler
      .handle(this, channel, msg)
      .catch((err: Error) => this.logger.error(`Consumer ${this.name} could not settle a message: ${err.message}`));
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }
}
