import { storage, Store } from 'nestjs-pino/storage';
import type { EventEnvelope } from './contracts/event-contract';

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
