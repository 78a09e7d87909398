import type { DataSource, EntityManager } from 'typeorm';
import type { EventEnvelope } from '../contracts/event-contract';
import type { EventHandler } from '../event-bus';
import { ProcessedEvent } from './outbox.entities';

/**
 * Idempotent consumers: records `(consumer, event id)` in `<schema>.processed_events` in the same
 * transaction as the handler's writes, so a redelivered event is recognised and skipped, and a
 * handler that fails leaves no mark (its retry runs again).
 */
export class Inbox {
  /**
   * Runs `fn` once per `(consumer, eventId)`. With a manager inside a transaction it joins that
   * transaction; otherwise it opens one. Resolves true when `fn` ran, false for a duplicate.
   * A concurrent duplicate waits for the first delivery's transaction, then sees it as done.
   */
  static async once(
    manager: EntityManager,
    consumer: string,
    eventId: string,
    fn: (manager: EntityManager) => Promise<unknown>,
  ): Promise<boolean> {
    const run = async (m: EntityManager): Promise<boolean> => {
      if (!m.connection.hasMetadata(ProcessedEvent)) {
        throw new Error(
          'The ProcessedEvent entity is not registered: add messagingEntities to DatabaseModule.forRoot({ entities }) and call createOutboxTables() in a migration',
        );
      }
      const table = m.connection.getMetadata(ProcessedEvent).tablePath;
      const inserted: unknown[] = await m.query(
        `INSERT INTO ${table} (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING event_id`,
        [consumer, eventId],
      );
      if (inserted.length === 0) return false;
      await fn(m);
      return true;
    };
    if (manager.queryRunner?.isTransactionActive) return run(manager);
    return manager.transaction(run);
  }

  /**
   * Wraps a handler for `EventBus.subscribe`: each event runs in its own transaction, once.
   * `bus.subscribe('email-api', [AutomationEmailCaptured], Inbox.handler(ds, 'email-api', (e, m) => ...))`
   */
  static handler<T = any>(
    dataSource: DataSource,
    consumer: string,
    fn: (event: EventEnvelope<T>, manager: EntityManager) => Promise<unknown>,
  ): EventHandler {
    return async (event) => {
      await Inbox.once(dataSource.manager, consumer, event.id, (m) => fn(event as EventEnvelope<T>, m));
    };
  }
}
