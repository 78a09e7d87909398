import { randomUUID } from 'node:crypto';

/**
 * What travels on the wire (JSON body of every message). `correlationId` is carried in the AMQP
 * header `x-correlation-id` rather than in the body; consumers see it here again.
 */
export interface EventEnvelope<T> {
  id: string;
  type: string;
  occurredAt: string;
  source: string;
  data: T;
  correlationId?: string;
}

/** A typed event definition: `type` is the routing key, `_data` only carries the payload type. */
export interface EventContract<T> {
  readonly type: string;
  readonly _data?: T;
}

/** The payload type of a contract: `EventData<typeof AutomationEmailCaptured>`. */
export type EventData<C> = C extends EventContract<infer T> ? T : never;

const EVENT_TYPE = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

export function defineEvent<T>(type: string): EventContract<T> {
  if (!EVENT_TYPE.test(type)) {
    throw new Error(`Invalid event type "${type}": use lower-case dotted words such as "service.something_happened"`);
  }
  return Object.freeze({ type }) as EventContract<T>;
}

export interface PublishOptions {
  /** Event id (uuid); a new one when omitted. Consumers deduplicate by it. */
  id?: string;
  /** Correlation id carried from the HTTP request into the consumer's logs. */
  correlationId?: string;
  /** When the fact happened; now when omitted. */
  occurredAt?: Date | string;
}

export function createEnvelope<T>(
  event: EventContract<T>,
  data: T,
  source: string,
  opts: PublishOptions = {},
): EventEnvelope<T> {
  const occurredAt =
    opts.occurredAt === undefined
      ? new Date().toISOString()
      : typeof opts.occurredAt === 'string'
        ? opts.occurredAt
        : opts.occurredAt.toISOString();
  const envelope: EventEnvelope<T> = { id: opts.id ?? randomUUID(), type: event.type, occurredAt, source, data };
  if (opts.correlationId) envelope.correlationId = opts.correlationId;
  return envelope;
}

/** The JSON body: everything but the correlation id, which travels as a header. */
export function encodeEnvelope(envelope: EventEnvelope<unknown>): Buffer {
  const { id, type, occurredAt, source, data } = envelope;
  return Buffer.from(JSON.stringify({ id, type, occurredAt, source, data }));
}

/** Parses and checks a message body; throws a descriptive error for anything that is not an envelope. */
export function decodeEnvelope(body: Buffer | string, correlationId?: string): EventEnvelope<unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof body === 'string' ? body : body.toString('utf8'));
  } catch (err) {
    throw new Error(`Message body is not JSON: ${(err as Error).message}`);
  }
  const e = parsed as Partial<EventEnvelope<unknown>> | null;
  if (!e || typeof e !== 'object') throw new Error('Message body is not an event envelope object');
  for (const field of ['id', 'type', 'occurredAt', 'source'] as const) {
    if (typeof e[field] !== 'string' || e[field] === '') {
      throw new Error(`Event envelope lacks the string field "${field}"`);
    }
  }
  if (!('data' in e)) throw new Error('Event envelope lacks "data"');
  const envelope = e as EventEnvelope<unknown>;
  if (correlationId) envelope.correlationId = correlationId;
  return envelope;
}
