import { Logger } from '@nestjs/common';
import type { ConfirmChannel, ConsumeMessage, Options } from 'amqplib';
import { decodeEnvelope, type EventEnvelope } from '../contracts/event-contract';
import { retryDelay, type DeliveryOutcome, type EventHandler } from '../event-bus';
import { runInEventContext } from '../log-context';
import type { AmqpConnection } from './amqp-connection';
import type { ResolvedAmqpOptions } from './amqp-options';

/** The consumer a message was delivered to, as the settler sees it. */
export interface DeliveryTarget {
  readonly name: string;
  readonly maxRetries: number;
  handlerFor(type: string): EventHandler | undefined;
}

/** Headers RabbitMQ adds when dead-lettering; not copied onto republished messages. */
const BROKER_HEADERS = /^x-(death|first-death-|last-death-)/;

/**
 * Settles one delivered message: decodes the envelope, runs the consumer's handler for its type
 * (in the event's context), and then acks it, moves it to `<consumer>.retry` with `x-retries`
 * incremented (per-message TTL = backoff), or dead-letters it to `platform.dlx` once the retries are
 * used up or when the body is not an envelope. A move is published with confirms before the
 * original is acked; if it fails the original is requeued, so nothing is lost.
 */
export class MessageSettler {
  private readonly logger = new Logger('AmqpEventBus');

  constructor(
    private readonly opts: ResolvedAmqpOptions,
    private readonly link: AmqpConnection,
    private readonly onOutcome: (consumer: string, outcome: DeliveryOutcome) => void = () => undefined,
  ) {}

  async handle(c: DeliveryTarget, channel: ConfirmChannel, msg: ConsumeMessage): Promise<void> {
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
      if (await this.republish(c, channel, msg, this.opts.dlx, c.name, { 'x-error': (err as Error).message })) {
        this.onOutcome(c.name, 'dead_lettered');
      }
      return;
    }
    const handler = c.handlerFor(envelope.type);
    if (!handler) {
      this.logger.warn(`Consumer ${c.name} has no handler for ${envelope.type}; event ${envelope.id} dropped`);
      this.settle(channel, msg, 'ack');
      return;
    }
    // Logs of the handler and of its retry or dead-lettering carry the event's correlation id.
    await runInEventContext(envelope, () => this.runHandler(c, channel, msg, envelope, handler, retries));
  }

  private async runHandler(
    c: DeliveryTarget,
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
        if (await this.republish(c, channel, msg, this.opts.dlx, c.name, { 'x-retries': retries, 'x-error': error.slice(0, 1000) })) {
          this.onOutcome(c.name, 'dead_lettered');
        }
        return;
      }
      const attempt = retries + 1;
      const delay = retryDelay(attempt, this.opts.retryDelayMs, this.opts.maxRetryDelayMs);
      this.logger.warn(
        `Consumer ${c.name} failed on ${envelope.type} ${envelope.id} (retry ${attempt}/${c.maxRetries} in ${delay} ms): ${error}`,
      );
      if (await this.republish(c, channel, msg, '', `${c.name}.retry`, { 'x-retries': attempt, 'x-error': error.slice(0, 1000) }, delay)) {
        this.onOutcome(c.name, 'retried');
      }
      return;
    }
    this.settle(channel, msg, 'ack');
    this.onOutcome(c.name, 'handled');
  }

  /**
   * Moves a message to the retry queue or the dead-letter exchange: publish (confirmed) first,
   * then ack the original. If the publish fails the original is requeued, so nothing is lost.
   * Resolves true when the message was moved.
   */
  private async republish(
    c: DeliveryTarget,
    channel: ConfirmChannel,
    msg: ConsumeMessage,
    exchange: string,
    routingKey: string,
    extraHeaders: Record<string, unknown>,
    expirationMs?: number,
  ): Promise<boolean> {
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
      await this.link.confirmPublish(channel, exchange, routingKey, msg.content, options);
    } catch (err) {
      this.logger.warn(`Consumer ${c.name} could not move a message to ${routingKey}: ${(err as Error).message}; requeued`);
      this.settle(channel, msg, 'requeue');
      return false;
    }
    this.settle(channel, msg, 'ack');
    return true;
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
}
