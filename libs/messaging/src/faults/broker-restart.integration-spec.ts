import { Logger } from '@nestjs/common';
import { Database } from '@platform/database';
import {
  createTestDatabase,
  createTestRabbit,
  startTcpProxy,
  testServices,
  type TcpProxy,
  type TestDatabase,
  type TestRabbit,
} from '@platform/testing';
import { DataSource } from 'typeorm';
import { AmqpEventBus } from '../amqp/amqp-event-bus';
import { defineEvent } from '../contracts/event-contract';
import { Inbox } from '../outbox/inbox';
import { Outbox, OutboxRelay } from '../outbox/outbox';
import { messagingEntities } from '../outbox/outbox.entities';
import { createOutboxTables } from '../outbox/outbox.migration';
import { waitFor } from '../test-helpers';

const InvoicePaid = defineEvent<{ n: number }>('test.invoice_paid');

const EVENTS = 60;
/** How long the broker stays away: every connection cut, new ones refused. */
const OUTAGE_MS = 1500;

/**
 * RabbitMQ "restarted" while events flow. The shared broker is never restarted (other tests use it):
 * a loopback TCP proxy between the app and the broker cuts every connection and refuses new ones
 * for a while, which is what a client sees of a restart. Publisher (outbox relay) and consumer
 * (inbox) both go through it; the ledger written in the inbox's transaction proves each event was
 * handled exactly once, and the outbox that every event was published.
 */
const withRabbit = testServices().amqpUrl && !testServices().embedded ? describe : describe.skip;

withRabbit('RabbitMQ restarted while events flow (outbox + inbox, real PostgreSQL and RabbitMQ)', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let database: Database;
  let rabbit: TestRabbit;
  let proxy: TcpProxy;
  let bus: AmqpEventBus;
  let relay: OutboxRelay;
  const schema = 'billing';

  beforeAll(async () => {
    // The outage is expected: keep its reconnect warnings out of the test output.
    for (const level of ['log', 'warn'] as const) jest.spyOn(Logger.prototype, level).mockImplementation(() => undefined);
    db = await createTestDatabase();
    rabbit = await createTestRabbit();
    proxy = await startTcpProxy(rabbit.url);
    ds = new DataSource({ type: 'postgres', url: db.url, schema, entities: messagingEntities, poolSize: 6 });
    await ds.initialize();
    database = new Database(ds);
    await ds.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    const q = ds.createQueryRunner();
    try {
      await createOutboxTables(q);
    } finally {
      await q.release();
    }
    await ds.query(`CREATE TABLE ${schema}.ledger (event_id uuid NOT NULL, n integer NOT NULL)`);
  });

  afterAll(async () => {
    await relay?.stop();
    await bus?.close();
    await proxy?.close();
    await ds?.destroy();
    await db?.drop();
    await rabbit?.cleanup();
    jest.restoreAllMocks();
  });

  it('loses no event and handles none twice', async () => {
    bus = new AmqpEventBus({
      url: proxy.rewriteUrl(rabbit.url),
      source: 'billing-api',
      exchange: rabbit.exchange,
      dlx: rabbit.dlx,
      retryDelayMs: 20,
      reconnectDelayMs: 50,
      maxReconnectDelayMs: 300,
      publishTimeoutMs: 2000,
    });
    await bus.start();
    const inbox = new Inbox(database);
    let deliveries = 0;
    await bus.subscribe(
      rabbit.queue('ledger'),
      [InvoicePaid],
      inbox.handler<{ n: number }>('ledger', async (event) => {
        deliveries++;
        await database.rows(`INSERT INTO ${schema}.ledger (event_id, n) VALUES ($1, $2)`, [event.id, event.data.n]);
        // Slow enough that some deliveries are in flight when the connection goes.
        await new Promise((r) => setTimeout(r, 10));
      }),
      { prefetch: 5 },
    );
    relay = new OutboxRelay(ds, bus, { pollIntervalMs: 50, failureDelaySeconds: 0.05 });
    const outbox = new Outbox('billing-api', database, relay);
    relay.start();

    const enqueue = (n: number) => database.transaction(() => outbox.enqueue(InvoicePaid, { n }));
    let n = 0;
    for (; n < EVENTS / 3; n++) await enqueue(n);

    await proxy.cut({ newConnections: 'refuse' });
    await waitFor('the bus to see the broker gone', () => !bus.connected);
    // Events keep coming while the broker is away: they wait in the outbox.
    const outageEnds = Date.now() + OUTAGE_MS;
    for (; n < (2 * EVENTS) / 3; n++) {
      await enqueue(n);
      await new Promise((r) => setTimeout(r, Math.max(0, (outageEnds - Date.now()) / (EVENTS / 3))));
    }
    await new Promise((r) => setTimeout(r, Math.max(0, outageEnds - Date.now())));
    await proxy.restore();
    for (; n < EVENTS; n++) await enqueue(n);

    await waitFor('every event in the ledger', async () => {
      const [row] = await ds.query(`SELECT count(*)::int AS n FROM ${schema}.ledger`);
      return row.n >= EVENTS;
    }, 30_000);
    await waitFor('every outbox row sent', async () => {
      const [row] = await ds.query(`SELECT count(*)::int AS n FROM ${schema}.outbox WHERE sent_at IS NULL`);
      return row.n === 0;
    });
    // Let late redeliveries arrive: the inbox must skip them.
    await new Promise((r) => setTimeout(r, 300));

    const ledger: Array<{ n: number; times: number }> = await ds.query(
      `SELECT n, count(*)::int AS times FROM ${schema}.ledger GROUP BY n ORDER BY n`,
    );
    expect(ledger).toEqual(Array.from({ length: EVENTS }, (_, i) => ({ n: i, times: 1 })));
    const [outboxCount] = await ds.query(`SELECT count(*)::int AS n, count(DISTINCT event_id)::int AS ids FROM ${schema}.outbox`);
    expect(outboxCount).toEqual({ n: EVENTS, ids: EVENTS });
    const [processed] = await ds.query(`SELECT count(*)::int AS n FROM ${schema}.processed_events WHERE consumer = 'ledger'`);
    expect(processed.n).toBe(EVENTS);
    expect(deliveries).toBeGreaterThanOrEqual(EVENTS);
    // The bus reconnected through the proxy (a second connection at least).
    expect(bus.connected).toBe(true);
    expect(proxy.accepted).toBeGreaterThan(1);
  });
});
