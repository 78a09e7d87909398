import { storage, Store } from 'nestjs-pino/storage';
import type { EventEnvelope, PublishOptions } from './contracts/event-contract';

/**
 * Runs a handler with a logger bound to the event: every log line the handler writes (Nest `Logger`
 * through nestjs-pino) carries `correlationId` (the producer's request id), `eventId` and `eventType`.
 * Outside an app (no logger in the async context) the handler just runs.
 */
export function runInEventContext<T>(event: EventEnvelope<unknown>, fn: () => Promise<T>): Promise<T> {
  const store = storage.getStore();
  if (!store) return fn();
  const bindings: Record<string, string> = { eventId: event.id, eventType: event.type };
  if (event.correlationId) bindings.correlationId = event.correlationId;
  return storage.run(new Store(store.logger.child(bindings)), fn);
}

/**
 * The correlation id of the current async context, read from the logger nestjs-pino keeps there:
 * inside an event handler the event's `correlationId` (bound by `runInEventContext`), inside an HTTP
 * request its `requestId` (bound by the platform's pino-http). Undefined elsewhere.
 */
export function currentCorrelationId(): string | undefined {
  const logger = storage.getStore()?.logger;
  if (!logger || typeof logger.bindings !== 'function') return undefined;
  const bindings = logger.bindings() as { correlationId?: unknown; requestId?: unknown };
  const id = bindings.correlationId ?? bindings.requestId;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/**
 * Publish options with the correlation id defaulted from the context, so an event published while
 * handling a request (or another event) carries that request's id without every caller passing it.
 */
export function withContextCorrelation(opts: PublishOptions = {}): PublishOptions {
  if (opts.correlationId) return opts;
  const correlationId = currentCorrelationId();
  return correlationId ? { ...opts, correlationId } : opts;
}
