import { Logger } from '@nestjs/common';
import * as amqp from 'amqplib';
import type { ChannelModel, ConfirmChannel, Options } from 'amqplib';
import { BrokerUnavailableError, retryDelay } from '../event-bus';
import { errorMessage, redactUrl, type ResolvedAmqpOptions } from './amqp-options';

/** What the connection tells the consumers: a connection is usable, or it is gone. */
export interface ConnectionListener {
  /** A connection with its publish channel and exchanges is in place (first connect or reconnect). */
  onConnected(connection: ChannelModel): void;
  /** The connection closed unexpectedly; a reconnect is scheduled. */
  onDisconnected(): void;
}

/**
 * The RabbitMQ connection of one bus: connects (the first attempt awaited, later ones in the
 * background with exponential backoff and jitter), keeps the confirm channel used for publishing
 * and the two exchanges, reconnects on `error`/`close` of the connection or of the publish channel,
 * and publishes with confirms. Every connection and channel gets `error` and `handler-error`
 * listeners, so a broker restart never crashes the process.
 */
export class AmqpConnection {
  private readonly logger = new Logger('AmqpEventBus');
  private connection: ChannelModel | null = null;
  private publishChannel: ConfirmChannel | null = null;
  private connecting: Promise<void> | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private reconnectAttempt = 0;
  private lastError: string | null = null;
  private started = false;
  private closing = false;

  constructor(
    private readonly opts: ResolvedAmqpOptions,
    private readonly listener: ConnectionListener,
  ) {}

  /** True while a connection with its publish channel is open. */
  get connected(): boolean {
    return this.connection !== null && this.publishChannel !== null;
  }

  /** The open connection (null while disconnected). */
  get current(): ChannelModel | null {
    return this.connection;
  }

  get isClosing(): boolean {
    return this.closing;
  }

  get isStarted(): boolean {
    return this.started;
  }

  /** Resolves once the connection attempt under way (if any) is over. */
  settled(): Promise<void> {
    return this.connecting ?? Promise.resolve();
  }

  /** First connection attempt (failures are retried in the background). Idempotent; never throws. */
  async start(): Promise<void> {
    if (this.started) return this.settled();
    this.started = true;
    await this.connect();
  }

  /** Stops reconnecting; the connection stays open until `end()` (in-flight handlers still settle). */
  beginClose(): void {
    this.closing = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
  }

  /** Closes the connection; unacked messages go back to their queues. */
  async end(): Promise<void> {
    const connection = this.connection;
    this.connection = null;
    this.publishChannel = null;
    if (connection) await connection.close().catch(() => undefined);
  }

  /** Publishes on the publish channel and waits for the broker's confirm; fails at once while disconnected. */
  publish(exchange: string, routingKey: string, content: Buffer, options: Options.Publish): Promise<void> {
    const channel = this.publishChannel;
    if (!channel || !this.connection) return Promise.reject(new BrokerUnavailableError(this.unavailableMessage()));
    return this.confirmPublish(channel, exchange, routingKey, content, options);
  }

  /** Publishes on a confirm channel and resolves on the broker's ack (rejects on nack, timeout or a closed channel). */
  confirmPublish(channel: ConfirmChannel, exchange: string, routingKey: string, content: Buffer, options: Options.Publish): Promise<void> {
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

  /** Reconnect delay of the n-th attempt: the configured backoff with ±20 % jitter. */
  backoff(attempt: number): number {
    const base = retryDelay(attempt, this.opts.reconnectDelayMs, this.opts.maxReconnectDelayMs);
    return Math.round(base * (0.8 + Math.random() * 0.4));
  }

  /**
   * Listens on a channel so that its errors never crash the process; `onUnexpectedClose` runs with
   * the broker's reason when it closes without the whole connection going down (a channel-level
   * error), and logs it: an 'error' is always followed by 'close', so it is not logged twice, and a
   * failing consumer's retries are not logged each time.
   */
  watchChannel(channel: ConfirmChannel, purpose: string, onUnexpectedClose: (reason: string) => void): void {
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

  unavailableMessage(): string {
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
    this.listener.onConnected(connection);
  }

  private onConnectionClosed(connection: ChannelModel, err?: Error): void {
    if (this.connection !== connection) return; // a failed attempt or our own close()
    this.connection = null;
    this.publishChannel = null;
    this.listener.onDisconnected();
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

  /** Without its publish channel the bus cannot publish: rebuild the connection (this re-asserts the exchanges). */
  private onPublishChannelClosed(connection: ChannelModel, reason: string): void {
    if (this.closing || this.connection !== connection) return;
    this.lastError = reason;
    this.logger.warn(`RabbitMQ publish channel closed unexpectedly (${reason}); reconnecting`);
    void connection.close().catch(() => undefined);
  }
}
