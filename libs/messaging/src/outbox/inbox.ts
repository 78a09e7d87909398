import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { EventEnvelope } from '../contracts/event-contract';
import type { EventHandler } from '../event-bus';

/** PostgreSQL's "relation does not exist". */
const UNDEFINED_TABLE = '42P01';

/**
 * Idempotent consumers: records `(consumer, event id)` in `<schema>.processed_events` in the same
 * `db.transaction` as the handler's writes, so a redelivered event is recognised and skipped, and a
 * handler that fails leaves no mark (its retry runs again). Declared consumers (`@EventConsumer`)
 * go through it unless they opt out; `MessagingModule.forRoot({ outbox: true })` provides it.
 */
@Injectable()
export class Inbox {
  constructor(private readonly db: Database) {}

  /**
   * Runs `fn` once per `(consumer, eventId)`, in one transaction with the mark (joining the one open
   * in the current context, if any): every query `fn` makes through `Database` belongs to it.
   * Resolves true when `fn` ran, false for a duplicate. A concurrent duplicate waits for the first
   * delivery's transaction, then sees it as done.
   */
  once(consumer: string, eventId: string, fn: () => Promise<unknown>): Promise<boolean> {
    return this.db.transaction(async () => {
      const inserted = await this.mark(consumer, eventId);
      if (inserted.length === 0) return false;
      await fn();
      return true;
    });
  }

  /**
   * Marks a batch of events of the consumer in one statement, in the open `db.transaction` (refused
   * outside one), for deliveries handled together in it: answers the ids not marked before (handle
   * those; the others are duplicates). A concurrent duplicate waits for the other transaction.
   */
  async onceEach(consumer: string, eventIds: string[]): Promise<Set<string>> {
    if (!this.db.inTransaction) throw new Error('Inbox.onceEach outside a transaction: call it in the db.transaction that handles the events');
    if (!eventIds.length) return new Set();
    const rows = (await this.mark(consumer, eventIds)) as Array<{ event_id: string }>;
    return new Set(rows.map((r) => r.event_id));
  }

  /**
   * Wraps a handler for `EventBus.subscribe`: each event runs in its own transaction, once.
   * `bus.subscribe(queue, [AutomationEmailCaptured], inbox.handler('email-api', (e) => ...))`
   */
  handler<T = any>(consumer: string, fn: (event: EventEnvelope<T>) => Promise<unknown>): EventHandler {
    return async (event) => {
      await this.once(consumer, event.id, () => fn(event as EventEnvelope<T>));
    };
  }

  private async mark(consumer: string, eventId: string | string[]): Promise<unknown[]> {
    try {
      return await this.db.rows(
        Array.isArray(eventId)
          ? `INSERT INTO ${this.db.table('processed_events')} (consumer, event_id) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING RETURNING event_id`
          : `INSERT INTO ${this.db.table('processed_events')} (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING event_id`,
        [consumer, eventId],
      );
    } catch (err) {
      if ((err as { code?: string }).code !== UNDEFINED_TABLE) throw err;
      throw new Error(
        `The inbox table ${this.db.table('processed_events')} does not exist: call createOutboxTables() in a migration of this service`,
        { cause: err },
      );
    }
  }
}
