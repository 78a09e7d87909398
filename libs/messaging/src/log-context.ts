import { ClsServiceManager } from 'nestjs-cls';
import { storage, Store } from 'nestjs-pino/storage';
import type { EventEnvelope, PublishOptions } from './contracts/event-contract';

/**
 * Runs one delivery of an event to a handler in a context of its own:
 * - a fresh CLS context (nestjs-cls, which @platform/database's transactions live in): the handler
 *   never joins a transaction that is open where the message was published or subscribed (the
 *   in-process bus delivers within one process, where several apps run under `npm start`), and sees
 *   no other CLS value of that context;
 * - a logger bound to the event: every log line the handler writes (Nest `Logger` through
 *   nestjs-pino) carries `correlationId` (the producer's request id), `eventId` and `eventType`, on
 *   the subscribing app's logger. Outside an app (no logger in the async context) only the CLS
 *   context is fresh.
 */
export function runInEventContext<T>(event: EventEnvelope<unknown>, fn: () => Promise<T>): Promise<T> {
  const fresh = () => ClsServiceManager.getClsService().run({ ifNested: 'override' }, fn);
  const store = storage.getStore();
  if (!store) return fresh();
  const bindings: Record<string, string> = { eventId: event.id, eventType: event.type };
  if (event.correlationId) bindings.correlationId = event.correlationId;
  return storage.run(new Store(store.logger.child(bindings)), fresh);
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
