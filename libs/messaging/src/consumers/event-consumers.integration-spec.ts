import { Injectable, Module } from '@nestjs/common';
import { Database, DatabaseModule, schemaOf } from '@platform/database';
import { BaseConfig, type ServiceDefinition } from '@platform/platform';
import { createTestApp, createTestRabbit, testServices, uniqueSuffix, type TestApp, type TestRabbit } from '@platform/testing';
import { ClsServiceManager } from 'nestjs-cls';
import { storage, Store } from 'nestjs-pino/storage';
import pino from 'pino';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { defineEvent, type EventEnvelope } from '../contracts/event-contract';
import { EventBus } from '../event-bus';
import { InProcessEventBus } from '../in-process/in-process-event-bus';
import { currentCorrelationId } from '../log-context';
import { MessagingModule } from '../messaging.module';
import { messagingEntities } from '../outbox/outbox.entities';
import { createOutboxTables, dropOutboxTables } from '../outbox/outbox.migration';
import { EventConsumer, OnEvent } from './event-consumer.decorators';
import { EventConsumers } from './event-consumers';
import { waitFor } from '../test-helpers';

const InvoicePaid = defineEvent<{ invoiceId: string; amount: number }>('test.invoice_paid');
const InvoiceVoided = defineEvent<{ invoiceId: string }>('test.invoice_voided');
const Probe = defineEvent<{ n: number }>('test.context_probe');
const Work = defineEvent<{ n: number }>('test.work');

class CreateTables1700000000000 implements MigrationInterface {
  name = 'CreateTables1700000000000';
  async up(q: QueryRunner): Promise<void> {
    await createOutboxTables(q);
    await q.query(`CREATE TABLE ${schemaOf(q)}.ledger (invoice_id text NOT NULL, amount integer NOT NULL)`);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE ${schemaOf(q)}.ledger`);
    await dropOutboxTables(q);
  }
}

/** What the handlers saw, and a gate that holds the Work handlers until the test opens it. */
@Injectable()
class Seen {
  calls: string[] = [];
  contexts: Array<{ n: number; inTransaction: boolean; probe: unknown; correlationId: string | undefined; wrote: boolean }> = [];
  running = { defaults: 0, own: 0 };
  failures = { defaults: 0, own: 0 };
  release!: () => void;
  gate = new Promise<void>((r) => (this.release = r));
}

@Injectable()
@EventConsumer('test-api.billing')
class BillingConsumer {
  failOnce = new Set(['fails-once']);
  constructor(
    private readonly db: Database,
    private readonly seen: Seen,
  ) {}

  @OnEvent(InvoicePaid)
  async paid(event: EventEnvelope<{ invoiceId: string; amount: number }>): Promise<void> {
    this.seen.calls.push(`paid:${event.data.invoiceId}`);
    await this.db.rows(`INSERT INTO ${this.db.table('ledger')} (invoice_id, amount) VALUES ($1, $2)`, [event.data.invoiceId, event.data.amount]);
    // The write above and the inbox mark roll back together: the retry writes again, once.
    if (this.failOnce.delete(event.data.invoiceId)) throw new Error('rolled back with its inbox mark');
  }

  @OnEvent(InvoiceVoided)
  async voided(event: EventEnvelope<{ invoiceId: string }>): Promise<void> {
    this.seen.calls.push(`voided:${event.data.invoiceId}`);
  }
}

@Injectable()
@EventConsumer('test-api.audit', { inbox: false })
class AuditConsumer {
  constructor(private readonly seen: Seen) {}

  @OnEvent([InvoicePaid, InvoiceVoided])
  async any(event: EventEnvelope<{ invoiceId: string }>): Promise<void> {
    this.seen.calls.push(`audit:${event.data.invoiceId}`);
  }
}

@Injectable()
@EventConsumer('test-api.context')
class ContextConsumer {
  constructor(
    private readonly db: Database,
    private readonly seen: Seen,
  ) {}

  // Without the inbox (a handler-level opt-out): any transaction it sees would be someone else's.
  @OnEvent(Probe, { inbox: false })
  async probe(event: EventEnvelope<{ n: number }>): Promise<void> {
    const inTransaction = this.db.inTransaction;
    const probe = ClsServiceManager.getClsService().isActive() ? ClsServiceManager.getClsService().get('probe') : undefined;
    // A query through Database works: it is not bound to a transaction that ended elsewhere.
    const wrote = (await this.db.one<{ ok: number }>('SELECT 1 AS ok'))?.ok === 1;
    this.seen.contexts.push({ n: event.data.n, inTransaction, probe, correlationId: currentCorrelationId(), wrote });
  }
}

/** A Work handler that fails for a negative n and otherwise holds on the gate, counting into `which`. */
function work(seen: Seen, which: 'defaults' | 'own', event: EventEnvelope<{ n: number }>): Promise<void> {
  if (event.data.n < 0) {
    seen.failures[which]++;
    return Promise.reject(new Error('always fails'));
  }
  seen.running[which]++;
  return seen.gate;
}

@Injectable()
@EventConsumer('test-api.work-defaults', { inbox: false })
class DefaultsConsumer {
  constructor(private readonly seen: Seen) {}

  @OnEvent(Work)
  handle(event: EventEnvelope<{ n: number }>): Promise<void> {
    return work(this.seen, 'defaults', event);
  }
}

@Injectable()
@EventConsumer('test-api.work-own', { inbox: false, prefetch: 1, maxRetries: 0 })
class OwnSettingsConsumer {
  constructor(private readonly seen: Seen) {}

  @OnEvent(Work)
  handle(event: EventEnvelope<{ n: number }>): Promise<void> {
    return work(this.seen, 'own', event);
  }
}

function definition(consumers: Array<new (...args: never[]) => object>): ServiceDefinition {
  @Module({
    imports: [
      DatabaseModule.forRoot({ entities: messagingEntities, migrations: [CreateTables1700000000000] }),
      MessagingModule.forRoot({ outbox: true }),
    ],
    providers: [Seen, ...consumers],
  })
  class TestRootModule {}
  return { name: 'test-api', port: 0, schema: 'consumers', config: BaseConfig, module: () => ({ module: TestRootModule }) };
}

describe('declared consumers (@EventConsumer / @OnEvent)', () => {
  const variants: Array<[string, boolean]> = [['the in-process bus', false]];
  if (testServices().amqpUrl) variants.push(['RabbitMQ', true]);

  describe.each(variants)('on %s', (_label, useAmqp) => {
    let rabbit: TestRabbit | undefined;
    let t: TestApp;
    let prefix: string;

    beforeAll(async () => {
      rabbit = useAmqp ? await createTestRabbit() : undefined;
      prefix = rabbit ? `${rabbit.prefix}.` : `t${uniqueSuffix(8)}.`;
      for (const name of ['test-api.billing', 'test-api.audit', 'test-api.context']) rabbit?.queue(name);
      t = await createTestApp(definition([BillingConsumer, AuditConsumer, ContextConsumer]), {
        EVENTS_QUEUE_PREFIX: prefix,
        ...(rabbit ? { AMQP_URL: rabbit.url, EVENTS_EXCHANGE: rabbit.exchange, EVENTS_DLX: rabbit.dlx } : {}),
      });
    });

    afterAll(async () => {
      await t?.close();
      await rabbit?.cleanup();
    });

    it('finds every consumer class through discovery and subscribes its queue, with the prefix, to its events', async () => {
      const found = t.app.get(EventConsumers).consumers.map((c) => ({ name: c.name, queue: c.queue, events: c.events.map((e) => e.type).sort() }));
      expect(found.sort((a, b) => a.name.localeCompare(b.name))).toEqual([
        { name: 'test-api.audit', queue: `${prefix}test-api.audit`, events: ['test.invoice_paid', 'test.invoice_voided'] },
        { name: 'test-api.billing', queue: `${prefix}test-api.billing`, events: ['test.invoice_paid', 'test.invoice_voided'] },
        { name: 'test-api.context', queue: `${prefix}test-api.context`, events: ['test.context_probe'] },
      ]);
      const seen = t.app.get(Seen);
      await t.app.get(EventBus).publish(InvoiceVoided, { invoiceId: 'v-1' });
      await waitFor('both consumers', () => seen.calls.includes('voided:v-1') && seen.calls.includes('audit:v-1'));
    });

    it('handles a redelivered event once through the inbox (writes and mark in one transaction), and twice when the consumer opted out', async () => {
      const seen = t.app.get(Seen);
      const bus = t.app.get(EventBus);
      const db = t.app.get(Database);
      const id = '0b6f2d4c-8a1e-4f3b-9c5d-7e8f9a0b1c2d';
      await bus.publish(InvoicePaid, { invoiceId: 'dup', amount: 10 }, { id });
      await bus.publish(InvoicePaid, { invoiceId: 'dup', amount: 10 }, { id });
      await bus.publish(InvoicePaid, { invoiceId: 'fails-once', amount: 3 });

      const processed = async () =>
        (await db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${db.table('processed_events')} WHERE consumer = 'test-api.billing' AND event_id = $1`, [id]))?.n;
      await waitFor('both events processed', async () => (await db.rows(`SELECT 1 FROM ${db.table('processed_events')} WHERE consumer = 'test-api.billing'`)).length === 3);
      await waitFor('the opted-out consumer to see every delivery', () => seen.calls.filter((c) => c === 'audit:dup').length === 2);
      await waitFor('the failing event retried', () => seen.calls.filter((c) => c === 'paid:fails-once').length === 2);
      expect(await processed()).toBe(1);
      expect(await db.rows(`SELECT invoice_id, amount FROM ${db.table('ledger')} ORDER BY invoice_id`)).toEqual([
        { invoice_id: 'dup', amount: 10 },
        { invoice_id: 'fails-once', amount: 3 },
      ]);
      // The duplicate's second delivery found the mark and never reached the handler.
      expect(seen.calls.filter((c) => c === 'paid:dup')).toHaveLength(1);
      await expect(db.one(`SELECT count(*)::int AS n FROM ${db.table('ledger')} WHERE invoice_id = 'dup'`)).resolves.toEqual({ n: 1 });
    });

    it("runs each delivery in a fresh async context: no publisher's transaction, CLS value or request id", async () => {
      const seen = t.app.get(Seen);
      const bus = t.app.get(EventBus);
      const db = t.app.get(Database);
      const cls = ClsServiceManager.getClsService();
      const request = pino({ enabled: false }).child({ requestId: 'req-publisher' });
      // Published inside a request's logger context, a CLS context holding a value and an open transaction.
      await storage.run(new Store(request), () =>
        cls.run(async () => {
          cls.set('probe', 'from the publisher');
          await db.transaction(async () => {
            expect(db.inTransaction).toBe(true);
            await bus.publish(Probe, { n: 1 }, { correlationId: 'corr-1' });
          });
        }),
      );
      // A subscription made inside a transaction: the in-process bus delivers in the subscriber's context.
      const direct: Array<{ inTransaction: boolean; probe: unknown }> = [];
      const queue = rabbit ? rabbit.queue('direct') : `${prefix}direct`;
      await cls.run(async () => {
        cls.set('probe', 'from the subscriber');
        await db.transaction(() =>
          bus.subscribe(queue, [Probe], async () => {
            direct.push({ inTransaction: db.inTransaction, probe: cls.isActive() ? cls.get('probe') : undefined });
            await db.one('SELECT 1');
          }),
        );
      });
      await bus.publish(Probe, { n: 2 });
      await waitFor('the probes', () => seen.contexts.length === 2 && direct.length === 1);
      expect(seen.contexts.find((c) => c.n === 1)).toEqual({ n: 1, inTransaction: false, probe: undefined, correlationId: 'corr-1', wrote: true });
      expect(direct).toEqual([{ inTransaction: false, probe: undefined }]);
    });
  });

  describe('prefetch and retries from the EVENTS_* settings, overridden per consumer (in-process bus)', () => {
    let t: TestApp;
    let prefix: string;

    beforeAll(async () => {
      prefix = `t${uniqueSuffix(8)}.`;
      t = await createTestApp(definition([DefaultsConsumer, OwnSettingsConsumer]), {
        EVENTS_QUEUE_PREFIX: prefix,
        EVENTS_PREFETCH: '2',
        EVENTS_MAX_RETRIES: '1',
      });
    });

    afterAll(async () => {
      t.app.get(Seen).release();
      await t?.close();
    });

    it('hands each consumer as many messages at once as its prefetch allows', async () => {
      const seen = t.app.get(Seen);
      const bus = t.app.get(EventBus) as InProcessEventBus;
      for (let n = 0; n < 5; n++) await bus.publish(Work, { n });
      await waitFor('the handlers to start', () => seen.running.defaults === 2 && seen.running.own === 1);
      expect(bus.broker.pending(`${prefix}test-api.work-defaults`)).toBe(3); // EVENTS_PREFETCH=2
      expect(bus.broker.pending(`${prefix}test-api.work-own`)).toBe(4); // prefetch: 1
      seen.release();
      await bus.broker.whenIdle();
      expect(seen.running).toEqual({ defaults: 5, own: 5 });
    });

    it('retries a failing event as often as configured, then dead-letters it', async () => {
      const seen = t.app.get(Seen);
      const bus = t.app.get(EventBus) as InProcessEventBus;
      await bus.publish(Work, { n: -1 });
      await waitFor('both dead letters', () =>
        bus.broker.deadLetters(`${prefix}test-api.work-defaults`).length === 1 && bus.broker.deadLetters(`${prefix}test-api.work-own`).length === 1,
      );
      expect(seen.failures).toEqual({ defaults: 2, own: 1 }); // EVENTS_MAX_RETRIES=1; maxRetries: 0
      expect(bus.broker.deadLetters(`${prefix}test-api.work-defaults`)[0]).toMatchObject({ retries: 1, error: 'always fails' });
      expect(bus.broker.deadLetters(`${prefix}test-api.work-own`)[0]).toMatchObject({ retries: 0, error: 'always fails' });
    });
  });

  it('refuses at start an @OnEvent method whose class is not an @EventConsumer, naming it', async () => {
    @Injectable()
    class Forgotten {
      @OnEvent(InvoicePaid)
      async paid(): Promise<void> {}
    }
    await expect(createTestApp(definition([Forgotten]))).rejects.toThrow(/Forgotten\.paid has @OnEvent but Forgotten is not an @EventConsumer/);
  });
});
