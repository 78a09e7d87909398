import { AsyncResource } from 'node:async_hooks';
import { Logger } from '@nestjs/common';
import { claimDue, type Database } from '@platform/database';
import type { DataSource, EntityManager, EntitySubscriberInterface, QueryRunner } from 'typeorm';
import { createEnvelope, EventContract, EventEnvelope, PublishOptions } from '../contracts/event-contract';
import { EventBus } from '../event-bus';
import { withContextCorrelation } from '../log-context';
import { OutboxMessage, ProcessedEvent } from './outbox.entities';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Length of `outbox.correlation_id`. */
const MAX_CORRELATION_ID = 200;
/** The columns of an OutboxRow (what publishing an event reads): a relay's claim answers these, named. */
const OUTBOX_ROW_COLUMNS = ['id', 'event_id', 'type', 'source', 'occurred_at', 'correlation_id', 'data'];

export interface OutboxRelayOptions {
  /** Rows claimed and published per round. Default 100. */
  batchSize?: number;
  /** Polling interval when nothing wakes the relay. Default 1000 ms. */
  pollIntervalMs?: number;
  /** A claimed row is free again after this long if its relay died. Default 60 s. */
  leaseSeconds?: number;
  /** A row whose publish failed is tried again after this long. Default 2 s. */
  failureDelaySeconds?: number;
  /** Sent rows are deleted after this long. Default 7 days. */
  retainSentHours?: number;
  /** processed_events rows (the Inbox's memory) are deleted after this long. Default 30 days. */
  retainProcessedHours?: number;
  /** How often old rows are pruned. Default hourly. */
  pruneIntervalMs?: number;
}

function tablePath(ds: DataSource, entity: new () => object): string {
  if (!ds.hasMetadata(entity)) {
    throw new Error(
      `The ${entity.name} entity is not registered: add messagingEntities to DatabaseModule.forRoot({ entities }) and call createOutboxTables() in a migration`,
    );
  }
  return ds.getMetadata(entity).tablePath;
}

/**
 * Publishes outbox rows: claims due rows (`FOR UPDATE SKIP LOCKED` with a lease, so several
 * replicas share the work), publishes them with the stored id and time, marks them sent. Rows
 * whose publish fails stay unsent and are retried; nothing is claimed while the broker is down.
 * Woken right after a transaction that enqueued an event commits, and polls otherwise.
 */
export class OutboxRelay {
  private readonly logger = new Logger('OutboxRelay');
  private readonly opts: Required<OutboxRelayOptions>;
  private readonly pendingCommits = new WeakSet<QueryRunner>();
  private readonly subscriber: EntitySubscriberInterface;
  /**
   * The async context the relay was created in (its app's logger). A wake-up comes from the request
   * whose transaction committed; its rounds, and every poll timer chained from them, must not run
   * (and log) in that request's context for the rest of the process's life.
   */
  private readonly scope = new AsyncResource('OutboxRelay');
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private again = false;
  private started = false;
  private stopped = false;
  private lastPrune = 0;
  private brokerDown = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly bus: EventBus,
    options: OutboxRelayOptions = {},
  ) {
    this.opts = {
      batchSize: 100,
      pollIntervalMs: 1000,
      leaseSeconds: 60,
      failureDelaySeconds: 2,
      retainSentHours: 24 * 7,
      retainProcessedHours: 24 * 30,
      pruneIntervalMs: 3_600_000,
      ...options,
    };
    this.subscriber = {
      afterTransactionCommit: (event) => {
        const runner = event.queryRunner;
        if (runner.isTransactionActive || !this.pendingCommits.has(runner)) return;
        this.pendingCommits.delete(runner);
        this.wake();
      },
      afterTransactionRollback: (event) => {
        if (!event.queryRunner.isTransactionActive) this.pendingCommits.delete(event.queryRunner);
      },
    };
  }

  /** True between start() and stop(): publishing on its own (diagnostics, tests). */
  get active(): boolean {
    return this.started && !this.stopped;
  }

  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    (this.dataSource.subscribers as EntitySubscriberInterface[]).push(this.subscriber);
    this.lastPrune = Date.now() - this.opts.pruneIntervalMs + 60_000; // first prune a minute after start
    this.wake();
  }

  /** Called by Outbox.enqueue: publish once the enqueuing transaction has committed. */
  enqueued(manager: EntityManager): void {
    const runner = manager.queryRunner;
    if (runner?.isTransactionActive) this.pendingCommits.add(runner);
    else this.wake();
  }

  /** Runs a round soon (coalesced with one already running). */
  wake(): void {
    if (!this.started || this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = this.scope.runInAsyncScope(() => setTimeout(() => void this.loop(), 0));
    this.timer.unref();
  }

  /**
   * Publishes everything due now and resolves with the number of events published (tests and
   * shutdown). Throws only for database errors.
   */
  async flush(): Promise<number> {
    while (this.running) await this.running.catch(() => 0);
    this.running = this.publishDue();
    try {
      return await this.running;
    } finally {
      this.running = null;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
    const subscribers = this.dataSource.subscribers as EntitySubscriberInterface[];
    const i = subscribers.indexOf(this.subscriber);
    if (i >= 0) subscribers.splice(i, 1);
  }

  private async loop(): Promise<void> {
    this.timer = null;
    if (this.stopped) return;
    do {
      this.again = false;
      try {
        await this.flush();
        await this.pruneIfDue();
      } catch (err) {
        if (!this.stopped) this.logger.error(`Outbox relay round failed: ${(err as Error).message}`);
      }
    } while (this.again && !this.stopped);
    if (!this.stopped) {
      this.timer = setTimeout(() => void this.loop(), this.opts.pollIntervalMs);
      this.timer.unref();
    }
  }

  private async publishDue(): Promise<number> {
    if (!this.dataSource.isInitialized) return 0;
    try {
      await this.bus.check();
      if (this.brokerDown) this.logger.log('Broker reachable again; publishing the outbox');
      this.brokerDown = false;
    } catch (err) {
      if (!this.brokerDown) this.logger.warn(`Outbox waits for the broker: ${(err as Error).message}`);
      this.brokerDown = true;
      return 0;
    }
    const table = tablePath(this.dataSource, OutboxMessage);
    let published = 0;
    for (;;) {
      const rows = await claimDue<OutboxRow>(this.dataSource, {
        table,
        where: 'sent_at IS NULL',
        orderBy: 'id ASC',
        limit: this.opts.batchSize,
        lease: { column: 'claimed_until', seconds: this.opts.leaseSeconds },
        returning: OUTBOX_ROW_COLUMNS,
      });
      if (rows.length === 0) return published;
      const results = await Promise.allSettled(rows.map((row) => this.bus.publishEnvelope(toEnvelope(row))));
      const sent = rows.filter((_, i) => results[i].status === 'fulfilled').map((r) => r.id);
      if (sent.length > 0) {
        await this.dataSource.query(
          `UPDATE ${table} SET sent_at = now(), claimed_until = NULL, attempts = attempts + 1, last_error = NULL WHERE id = ANY($1)`,
          [sent],
        );
      }
      published += sent.length;
      const failed = rows.flatMap((row, i) => {
        const r = results[i];
        return r.status === 'rejected' ? [{ id: row.id, error: String((r.reason as Error)?.message ?? r.reason) }] : [];
      });
      for (const f of failed) {
        await this.dataSource.query(
          `UPDATE ${table} SET attempts = attempts + 1, last_error = $2,
             claimed_until = now() + make_interval(secs => $3::double precision) WHERE id = $1`,
          [f.id, f.error.slice(0, 2000), this.opts.failureDelaySeconds],
        );
      }
      if (failed.length > 0) {
        this.logger.warn(`Outbox: ${failed.length} event(s) not published, retried later: ${failed[0].error}`);
        return published;
      }
      if (rows.length < this.opts.batchSize) return published;
    }
  }

  /**
   * Publishes outbox rows its caller wrote claimed for itself (`claimed_until` ahead, so no relay
   * round takes them) in a transaction that has committed — a batch writer that publishes its own
   * round at once instead of waking the relay to claim it again: each event as the relay sends it
   * (stored id, type, source, time), the published rows marked sent in one statement, the others
   * given back to the relay's rounds at once. Rows left claimed by a process that stopped first are
   * taken by a relay when their claim ends (at least once, as ever: consumers deduplicate by id).
   * Never rejects.
   */
  async publishClaimed(rows: readonly OutboxRow[]): Promise<void> {
    if (rows.length === 0) return;
    const table = tablePath(this.dataSource, OutboxMessage);
    let sent: string[] = [];
    let failed: string[] = [];
    try {
      await this.bus.check();
      const results = await Promise.allSettled(rows.map((row) => this.bus.publishEnvelope(toEnvelope(row))));
      sent = rows.filter((_, i) => results[i].status === 'fulfilled').map((r) => r.id);
      failed = rows.filter((_, i) => results[i].status === 'rejected').map((r) => r.id);
    } catch {
      failed = rows.map((r) => r.id); // the broker is not reachable: the relay waits for it
    }
    try {
      if (sent.length > 0) {
        await this.dataSource.query(
          `UPDATE ${table} SET sent_at = now(), claimed_until = NULL, attempts = attempts + 1, last_error = NULL WHERE id = ANY($1) AND sent_at IS NULL`,
          [sent],
        );
      }
      if (failed.length > 0) {
        await this.dataSource.query(`UPDATE ${table} SET claimed_until = NULL WHERE id = ANY($1) AND sent_at IS NULL`, [failed]);
        this.wake();
      }
    } catch (err) {
      // Left claimed: a relay takes them when the claim ends (a sent one is published again).
      this.logger.warn(`Outbox: ${rows.length} claimed event(s) not marked: ${(err as Error).message}`);
    }
  }

  private async pruneIfDue(): Promise<void> {
    if (Date.now() - this.lastPrune < this.opts.pruneIntervalMs || !this.dataSource.isInitialized) return;
    this.lastPrune = Date.now();
    await this.dataSource.query(
      `DELETE FROM ${tablePath(this.dataSource, OutboxMessage)} WHERE sent_at < now() - make_interval(hours => $1)`,
      [this.opts.retainSentHours],
    );
    if (this.dataSource.hasMetadata(ProcessedEvent)) {
      await this.dataSource.query(
        `DELETE FROM ${tablePath(this.dataSource, ProcessedEvent)} WHERE processed_at < now() - make_interval(hours => $1)`,
        [this.opts.retainProcessedHours],
      );
    }
  }

  /** Deletes sent rows older than the retention now (also done hourly by the relay). */
  async prune(): Promise<void> {
    this.lastPrune = 0;
    await this.pruneIfDue();
  }
}

/** An outbox row as the relay reads it (and as `publishClaimed` takes it). */
export interface OutboxRow {
  id: string;
  event_id: string;
  type: string;
  source: string;
  occurred_at: Date | string;
  correlation_id?: string | null;
  data: unknown;
}

/** The INSERT of one event (the columns `enqueue` sets; the rest take their defaults). */
function insertStatement(table: string): string {
  return `INSERT INTO ${table} (event_id, type, source, occurred_at, correlation_id, data) VALUES ($1, $2, $3, $4::timestamptz, $5, $6::jsonb)`;
}

function toEnvelope(row: OutboxRow): EventEnvelope<unknown> {
  const envelope: EventEnvelope<unknown> = {
    id: row.event_id,
    type: row.type,
    occurredAt: new Date(row.occurred_at).toISOString(),
    source: row.source,
    data: row.data,
  };
  if (row.correlation_id) envelope.correlationId = row.correlation_id;
  return envelope;
}

/**
 * Transactional outbox: `enqueue` writes the event into `<schema>.outbox` in the transaction that is
 * open on the service's Database (`db.transaction(…)`), so the event exists if and only if the
 * business change committed. The relay publishes it after the commit, and keeps it until the broker
 * has confirmed it. Outside a transaction the row is written on its own and the relay woken at once.
 */
export class Outbox {
  private insertText?: string;

  constructor(
    private readonly source: string,
    private readonly db: Database,
    private readonly relay?: OutboxRelay,
  ) {}

  async enqueue<T>(event: EventContract<T>, data: T, opts?: PublishOptions): Promise<EventEnvelope<T>> {
    const envelope = createEnvelope(event, data, this.source, withContextCorrelation(opts));
    if (!UUID.test(envelope.id)) throw new Error(`Outbox event id must be a uuid, got ${JSON.stringify(envelope.id)}`);
    // A correlation id taken from a consumed message can be any length; it must never fail the business write.
    if (envelope.correlationId && envelope.correlationId.length > MAX_CORRELATION_ID) {
      envelope.correlationId = envelope.correlationId.slice(0, MAX_CORRELATION_ID);
    }
    const manager = this.db.manager;
    const text = (this.insertText ??= insertStatement(tablePath(manager.connection, OutboxMessage)));
    const params = [envelope.id, envelope.type, envelope.source, envelope.occurredAt, envelope.correlationId ?? null, JSON.stringify(envelope.data)];
    // In the caller's transaction through its runner; on its own as a prepared statement (the hot
    // case of workers recording a result: no query builder, planned once per connection).
    if (this.db.inTransaction) await manager.query(text, params);
    else await this.db.prepared('outbox_insert', text, params);
    this.relay?.enqueued(manager);
    return envelope;
  }
}
