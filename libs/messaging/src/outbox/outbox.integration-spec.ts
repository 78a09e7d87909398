import { Database } from '@platform/database';
import { createTestDatabase, createTestRabbit, testServices, type TestDatabase, type TestRabbit } from '@platform/testing';
import { storage, Store } from 'nestjs-pino/storage';
import pino from 'pino';
import { DataSource } from 'typeorm';
import { AmqpEventBus } from '../amqp/amqp-event-bus';
import { defineEvent, EventEnvelope } from '../contracts/event-contract';
import { EventBus } from '../event-bus';
import { InProcessBroker, InProcessEventBus } from '../in-process/in-process-event-bus';
import { Inbox } from './inbox';
import { Outbox, OutboxRelay, type OutboxRelayOptions } from './outbox';
import { messagingEntities } from './outbox.entities';
import { createOutboxTables } from './outbox.migration';
import { waitFor } from '../test-helpers';

const InvoicePaid = defineEvent<{ invoiceId: string; amount: number }>('test.invoice_paid');

/**
 * Outbox, relay and Inbox on real PostgreSQL; the broker is RabbitMQ when the test setup found
 * one (unique exchange and queues for this file), otherwise the in-process bus.
 */
describe('Outbox and Inbox (PostgreSQL)', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let database: Database;
  let schema: string;
  let rabbit: TestRabbit | undefined;
  let consumerSeq = 0;
  const closeables: Array<{ close(): Promise<void> } | { stop(): Promise<void> }> = [];

  function realBus(): EventBus {
    const bus = rabbit
      ? new AmqpEventBus({ url: rabbit.url, source: 'billing-api', exchange: rabbit.exchange, dlx: rabbit.dlx, retryDelayMs: 10 })
      : new InProcessEventBus('billing-api', new InProcessBroker({ retryDelayMs: 10 }));
    closeables.push(bus);
    return bus;
  }

  function consumerName(name: string): string {
    consumerSeq++;
    return rabbit ? rabbit.queue(`${name}${consumerSeq}`) : `${name}${consumerSeq}`;
  }

  function relay(bus: EventBus, opts: OutboxRelayOptions = {}): OutboxRelay {
    const r = new OutboxRelay(ds, bus, { pollIntervalMs: 50, failureDelaySeconds: 0.05, ...opts });
    closeables.push(r);
    return r;
  }

  async function outboxRows(): Promise<Array<{ event_id: string; sent_at: Date | null; attempts: number; last_error: string | null }>> {
    return ds.query(`SELECT event_id, sent_at, attempts, last_error FROM ${schema}.outbox ORDER BY id`);
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    schema = db.schema ?? 'billing';
    if (testServices().amqpUrl) rabbit = await createTestRabbit();
    ds = new DataSource({ type: 'postgres', url: db.url, schema, entities: messagingEntities, poolSize: 4 });
    await ds.initialize();
    database = new Database(ds);
    await ds.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    const q = ds.createQueryRunner();
    try {
      await createOutboxTables(q);
      await createOutboxTables(q); // idempotent
    } finally {
      await q.release();
    }
    await ds.query(`CREATE TABLE ${schema}.ledger (invoice_id text NOT NULL, amount integer NOT NULL)`);
  });

  afterEach(async () => {
    for (const c of closeables.splice(0).reverse()) {
      if ('stop' in c) await c.stop();
      else await c.close();
    }
    await ds.query(`DELETE FROM ${schema}.outbox`);
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
    await rabbit?.cleanup();
  });

  it('writes the event only when the transaction commits, and the relay publishes it right after the commit', async () => {
    const bus = realBus();
    await bus.start();
    const received: EventEnvelope<{ invoiceId: string; amount: number }>[] = [];
    await bus.subscribe(consumerName('ledger'), [InvoicePaid], async (e) => void received.push(e));
    // No polling during the test: only the wake-up after the commit can publish the event.
    const r = relay(bus, { pollIntervalMs: 600_000 });
    const outbox = new Outbox('billing-api', database, r);
    r.start();
    await r.flush(); // the start-up round is over: from now on only a wake-up publishes

    await expect(
      database.transaction(async () => {
        await outbox.enqueue(InvoicePaid, { invoiceId: 'rolled-back', amount: 1 });
        throw new Error('business rule failed');
      }),
    ).rejects.toThrow('business rule failed');
    expect(await outboxRows()).toHaveLength(0);

    const envelope = await database.transaction(() =>
      outbox.enqueue(InvoicePaid, { invoiceId: 'inv-1', amount: 42 }, { correlationId: 'req-7' }),
    );
    await waitFor('delivery', () => received.length === 1);
    expect(received[0]).toEqual({ ...envelope, source: 'billing-api' });
    expect(received[0]).toMatchObject({ correlationId: 'req-7', data: { invoiceId: 'inv-1', amount: 42 } });
    await waitFor('the row marked sent', async () => (await outboxRows())[0]?.sent_at !== null);
    const [row] = await outboxRows();
    expect(row).toMatchObject({ event_id: envelope.id, attempts: 1, last_error: null });
  });

  it('outside a transaction writes the event on its own and wakes the relay; an event id already stored is refused (23505)', async () => {
    const bus = realBus();
    await bus.start();
    const received: EventEnvelope<{ invoiceId: string; amount: number }>[] = [];
    await bus.subscribe(consumerName('ledger-alone'), [InvoicePaid], async (e) => void received.push(e));
    const r = relay(bus, { pollIntervalMs: 600_000 });
    const outbox = new Outbox('billing-api', database, r);
    r.start();
    await r.flush();

    const id = '6f1d2c3b-4a59-4e8f-9b7a-0c1d2e3f4a5b';
    const envelope = await outbox.enqueue(InvoicePaid, { invoiceId: 'alone', amount: 7 }, { id });
    await waitFor('delivery', () => received.length === 1);
    expect(received[0]).toEqual({ ...envelope, source: 'billing-api' });
    await expect(outbox.enqueue(InvoicePaid, { invoiceId: 'again', amount: 8 }, { id })).rejects.toMatchObject({ code: '23505' });
    expect((await outboxRows()).map((row) => row.event_id)).toEqual([id]);
  });

  it('publishClaimed publishes rows their writer claimed, marks them sent, and gives a failed one back to the relay', async () => {
    const bus = realBus();
    await bus.start();
    const received: EventEnvelope<{ invoiceId: string; amount: number }>[] = [];
    await bus.subscribe(consumerName('ledger-claimed'), [InvoicePaid], async (e) => void received.push(e));
    const r = relay(bus, { pollIntervalMs: 600_000 });
    r.start();
    await r.flush();
    // Written claimed by their writer (a batch writer's own statement): no relay round takes them.
    const ids = ['7b1d2c3b-4a59-4e8f-9b7a-0c1d2e3f4a51', '7b1d2c3b-4a59-4e8f-9b7a-0c1d2e3f4a52'];
    const rows: Array<{ id: string; event_id: string; type: string; source: string; occurred_at: Date; data: unknown }> = await ds.query(
      `INSERT INTO ${schema}.outbox (event_id, type, source, occurred_at, claimed_until, data)
       SELECT e, $2, 'billing-api', now(), now() + interval '60 seconds', jsonb_build_object('invoiceId', e, 'amount', 1) FROM unnest($1::uuid[]) AS e
       RETURNING id, event_id::text, type, source, occurred_at, data`,
      [ids, InvoicePaid.type],
    );
    expect(await r.flush()).toBe(0);

    // One publish fails: that row goes back to the relay at once, the other is marked sent.
    const publish = bus.publishEnvelope.bind(bus);
    const spy = jest.spyOn(bus, 'publishEnvelope').mockImplementation((e) => (e.id === ids[1] ? Promise.reject(new Error('nack')) : publish(e)));
    await r.publishClaimed(rows);
    spy.mockRestore();
    await waitFor('the first delivery', () => received.length === 1);
    expect(received[0]).toMatchObject({ id: ids[0], type: InvoicePaid.type, source: 'billing-api', data: { invoiceId: ids[0], amount: 1 } });
    const state = async () => new Map((await outboxRows()).map((row) => [row.event_id, row.sent_at !== null]));
    expect(await state()).toEqual(new Map([[ids[0], true], [ids[1], false]]));
    await waitFor('the relay publishing the one given back', () => received.length === 2);
    expect(received[1].id).toBe(ids[1]);
    await waitFor('both sent', async () => [...(await state()).values()].every(Boolean));
  });

  it('keeps events while the broker is unreachable and delivers them once it is back', async () => {
    // First the relay sees a broker on a closed port: nothing is claimed, nothing lost.
    const down = new AmqpEventBus({ url: 'amqp://guest:guest@127.0.0.1:1', source: 'billing-api', reconnectDelayMs: 60_000 });
    closeables.push(down);
    await down.start();
    const outbox = new Outbox('billing-api', database);
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      const e = await database.transaction(() => outbox.enqueue(InvoicePaid, { invoiceId: `offline-${n}`, amount: n }));
      ids.push(e.id);
    }
    const offline = relay(down);
    await expect(offline.flush()).resolves.toBe(0);
    expect((await outboxRows()).map((r) => r.sent_at)).toEqual([null, null, null]);
    await offline.stop();

    // Then the real broker: the relay publishes the backlog in order.
    const bus = realBus();
    await bus.start();
    const received: string[] = [];
    await bus.subscribe(consumerName('backlog'), [InvoicePaid], async (e) => void received.push(e.id));
    await expect(relay(bus).flush()).resolves.toBe(3);
    await waitFor('the backlog', () => received.length === 3);
    expect([...received].sort()).toEqual([...ids].sort());
    expect((await outboxRows()).every((r) => r.sent_at !== null)).toBe(true);
  });

  it('leaves a row whose publish failed unsent with its error, and publishes it on a later round', async () => {
    class FlakyBus extends InProcessEventBus {
      failNext = 1;
      override async publishEnvelope(envelope: EventEnvelope<unknown>): Promise<void> {
        if (this.failNext-- > 0) throw new Error('connection reset while publishing');
        await super.publishEnvelope(envelope);
      }
    }
    const broker = new InProcessBroker();
    const bus = new FlakyBus('billing-api', broker);
    const received: string[] = [];
    await bus.subscribe('flaky-consumer', [InvoicePaid], async (e) => void received.push(e.data.invoiceId));
    const r = relay(bus);
    await database.transaction(() => new Outbox('billing-api', database).enqueue(InvoicePaid, { invoiceId: 'retry-me', amount: 5 }));

    await expect(r.flush()).resolves.toBe(0);
    const [failed] = await outboxRows();
    expect(failed).toMatchObject({ sent_at: null, attempts: 1, last_error: 'connection reset while publishing' });

    await waitFor('the retry', async () => (await r.flush()) === 1);
    await broker.whenIdle();
    expect(received).toEqual(['retry-me']);
    expect((await outboxRows())[0]).toMatchObject({ attempts: 2, last_error: null });
  });

  it('Inbox runs a handler once per event id, also for a redelivered duplicate', async () => {
    const bus = realBus();
    await bus.start();
    const consumer = consumerName('inbox');
    let calls = 0;
    let failFirst = true;
    const inbox = new Inbox(database);
    await bus.subscribe(
      consumer,
      [InvoicePaid],
      inbox.handler<{ invoiceId: string; amount: number }>(consumer, async (e) => {
        calls++;
        await database.rows(`INSERT INTO ${schema}.ledger (invoice_id, amount) VALUES ($1, $2)`, [e.data.invoiceId, e.data.amount]);
        if (e.data.invoiceId === 'fails-once' && failFirst) {
          failFirst = false;
          throw new Error('rolled back with its inbox mark');
        }
      }),
    );
    const id = '6c1f8a2e-4b7d-4e3a-9f10-2d5e6a7b8c9d';
    await bus.publish(InvoicePaid, { invoiceId: 'dup', amount: 10 }, { id });
    await bus.publish(InvoicePaid, { invoiceId: 'dup', amount: 10 }, { id });
    await bus.publish(InvoicePaid, { invoiceId: 'fails-once', amount: 3 });

    const ledger = () => ds.query(`SELECT invoice_id, amount FROM ${schema}.ledger ORDER BY invoice_id`);
    const processed = async () =>
      Number((await ds.query(`SELECT count(*)::int AS n FROM ${schema}.processed_events WHERE consumer = $1`, [consumer]))[0].n);
    await waitFor('both events processed', async () => (await processed()) === 2);
    // The duplicate may arrive while the first is still running: give it time to be handled.
    await waitFor('the failing event retried', () => calls >= 3);
    expect(await ledger()).toEqual([
      { invoice_id: 'dup', amount: 10 },
      { invoice_id: 'fails-once', amount: 3 },
    ]);

    // The same event again, directly: recognised as done.
    await expect(inbox.once(consumer, id, async () => undefined)).resolves.toBe(false);
    await expect(inbox.once(`${consumer}-other`, id, async () => undefined)).resolves.toBe(true);
  });

  it('Inbox.onceEach marks a batch in the open transaction: answers the new ids; a rollback leaves no mark', async () => {
    const inbox = new Inbox(database);
    const consumer = consumerName('batch');
    await expect(inbox.onceEach(consumer, ['a'])).rejects.toThrow(/outside a transaction/);
    await database.transaction(() => inbox.once(consumer, 'a', async () => undefined));
    await expect(database.transaction(() => inbox.onceEach(consumer, ['a', 'b', 'c', 'b']))).resolves.toEqual(new Set(['b', 'c']));
    await expect(database.transaction(async () => { await inbox.onceEach(consumer, ['d']); throw new Error('rolled back'); })).rejects.toThrow('rolled back');
    await expect(database.transaction(() => inbox.onceEach(consumer, ['b', 'd']))).resolves.toEqual(new Set(['d']));
  });

  it('prunes sent rows past their retention and keeps unsent ones', async () => {
    const outbox = new Outbox('billing-api', database);
    const old = await database.transaction(() => outbox.enqueue(InvoicePaid, { invoiceId: 'old', amount: 1 }));
    const pending = await database.transaction(() => outbox.enqueue(InvoicePaid, { invoiceId: 'pending', amount: 2 }));
    await ds.query(`UPDATE ${schema}.outbox SET sent_at = now() - interval '8 days' WHERE event_id = $1`, [old.id]);
    await relay(new InProcessEventBus('billing-api', new InProcessBroker())).prune();
    expect((await outboxRows()).map((r) => r.event_id)).toEqual([pending.id]);
  });

  it("stores the request's id as correlation id when none is given, and cuts one too long for its column", async () => {
    const outbox = new Outbox('billing-api', database);
    const requestLogger = pino({ enabled: false }).child({ requestId: 'req-ambient' });
    const ambient = await storage.run(new Store(requestLogger), () =>
      database.transaction(() => outbox.enqueue(InvoicePaid, { invoiceId: 'a', amount: 1 })),
    );
    const long = await database.transaction(() =>
      outbox.enqueue(InvoicePaid, { invoiceId: 'b', amount: 2 }, { correlationId: 'x'.repeat(300) }),
    );
    const rows: Array<{ event_id: string; correlation_id: string }> = await ds.query(
      `SELECT event_id, correlation_id FROM ${schema}.outbox ORDER BY id`,
    );
    expect(rows).toEqual([
      { event_id: ambient.id, correlation_id: 'req-ambient' },
      { event_id: long.id, correlation_id: 'x'.repeat(200) },
    ]);
  });

  it("runs its rounds in its own context, not in that of the request whose commit woke it", async () => {
    const contexts: Array<unknown> = [];
    class ContextBus extends InProcessEventBus {
      override async publishEnvelope(envelope: EventEnvelope<unknown>): Promise<void> {
        contexts.push(storage.getStore()?.logger.bindings().requestId);
        await super.publishEnvelope(envelope);
      }
    }
    const r = relay(new ContextBus('billing-api', new InProcessBroker()), { pollIntervalMs: 600_000 });
    const outbox = new Outbox('billing-api', database, r);
    r.start();
    await r.flush();
    await new Promise((resolve) => setTimeout(resolve, 50)); // the start-up round is over: the commit's wake-up starts the next
    const requestLogger = pino({ enabled: false }).child({ requestId: 'req-commit' });
    await storage.run(new Store(requestLogger), () =>
      database.transaction(() => outbox.enqueue(InvoicePaid, { invoiceId: 'ctx', amount: 1 })),
    );
    await waitFor('the publish after the commit', () => contexts.length === 1);
    expect(contexts).toEqual([undefined]);
  });

  it('two relays (replicas) on one outbox publish every event exactly once', async () => {
    const outbox = new Outbox('billing-api', database);
    const ids = new Set<string>();
    await database.transaction(async () => {
      for (let n = 0; n < 40; n++) ids.add((await outbox.enqueue(InvoicePaid, { invoiceId: `r-${n}`, amount: n })).id);
    });
    const published: string[] = [];
    class CountingBus extends InProcessEventBus {
      override async publishEnvelope(envelope: EventEnvelope<unknown>): Promise<void> {
        published.push(envelope.id);
        await new Promise((r) => setImmediate(r));
      }
    }
    const broker = new InProcessBroker();
    const [a, b] = [relay(new CountingBus('billing-api', broker), { batchSize: 5 }), relay(new CountingBus('billing-api', broker), { batchSize: 5 })];
    const [na, nb] = await Promise.all([a.flush(), b.flush()]);
    expect(na + nb).toBe(40);
    expect(published).toHaveLength(40);
    expect(new Set(published)).toEqual(ids);
    expect((await outboxRows()).every((r) => r.sent_at !== null)).toBe(true);
  });

  it('refuses a non-uuid event id with a clear error', async () => {
    await expect(
      database.transaction(() => new Outbox('billing-api', database).enqueue(InvoicePaid, { invoiceId: 'x', amount: 1 }, { id: 'nope' })),
    ).rejects.toThrow(/must be a uuid/);
  });
});
