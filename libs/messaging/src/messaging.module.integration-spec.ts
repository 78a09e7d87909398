import { Module } from '@nestjs/common';
import { Database, DatabaseModule } from '@platform/database';
import { BaseConfig, runService, type ServiceDefinition } from '@platform/platform';
import { createTestApp, createTestRabbit, testServices, uniqueSuffix, type TestApp, type TestRabbit } from '@platform/testing';
import { connect } from 'amqplib';
import { DataSource, IsNull, type MigrationInterface, type QueryRunner } from 'typeorm';
import { AmqpEventBus } from './amqp/amqp-event-bus';
import { EventEnvelope } from './contracts/event-contract';
import { TranscribeJobFinished, type TranscribeJobFinishedData } from './contracts/events';
import { EventBus } from './event-bus';
import { InProcessEventBus } from './in-process/in-process-event-bus';
import { MessagingModule } from './messaging.module';
import { Outbox, OutboxRelay } from './outbox/outbox';
import { messagingEntities, OutboxMessage } from './outbox/outbox.entities';
import { createOutboxTables, dropOutboxTables } from './outbox/outbox.migration';
import { waitFor } from './test-helpers';

class CreateOutbox1700000000000 implements MigrationInterface {
  name = 'CreateOutbox1700000000000';
  up(q: QueryRunner): Promise<void> {
    return createOutboxTables(q);
  }
  down(q: QueryRunner): Promise<void> {
    return dropOutboxTables(q);
  }
}

function definition(commands?: ServiceDefinition['commands']): ServiceDefinition {
  @Module({
    imports: [
      DatabaseModule.forRoot({ entities: messagingEntities, migrations: [CreateOutbox1700000000000] }),
      MessagingModule.forRoot({ outbox: true }),
    ],
  })
  class TestRootModule {}
  return { name: 'transcribe-api', port: 0, schema: 'transcribe', config: BaseConfig, module: () => ({ module: TestRootModule }), commands };
}

/** The settings of the test: a fast relay, and with RabbitMQ the file's own exchanges and a short reconnect/consumer-retry backoff so a recovering consumer is seen within the test. */
function environment(rabbit?: TestRabbit): Record<string, string> {
  const env: Record<string, string> = { EVENTS_OUTBOX_POLL_MS: '100' };
  if (!rabbit) return env;
  return { ...env, AMQP_URL: rabbit.url, EVENTS_EXCHANGE: rabbit.exchange, EVENTS_DLX: rabbit.dlx, EVENTS_RECONNECT_DELAY_MS: '50', EVENTS_MAX_RECONNECT_DELAY_MS: '500' };
}

const sample: TranscribeJobFinishedData = {
  jobId: 'job-1',
  status: 'finished',
  queue: 'transcription',
  engine: 'whisper',
  textLength: 1234,
  language: 'en',
  durationSeconds: 61.5,
  error: null,
};

describe('MessagingModule in an app', () => {
  const amqpAvailable = Boolean(testServices().amqpUrl);
  const variants: Array<[string, boolean]> = [['the in-process bus (AMQP_URL unset)', false]];
  if (amqpAvailable) variants.push(['RabbitMQ (AMQP_URL set)', true]);

  describe.each(variants)('with %s', (_label, useAmqp) => {
    let rabbit: TestRabbit | undefined;
    let t: TestApp;

    beforeAll(async () => {
      rabbit = useAmqp ? await createTestRabbit() : undefined;
      t = await createTestApp(definition(), environment(rabbit));
    });

    afterAll(async () => {
      await t?.close();
      await rabbit?.cleanup();
    });

    it('provides the adapter the environment asks for and reports the broker in /readyz', async () => {
      const bus = t.app.get(EventBus);
      expect(bus).toBeInstanceOf(useAmqp ? AmqpEventBus : InProcessEventBus);
      if (bus instanceof AmqpEventBus) await bus.waitUntilConnected();
      const res = await t.http.get('/readyz').expect(200);
      expect(res.body.checks.broker).toEqual({ status: 'up' });
    });

    it('publishes an outbox event written in a transaction, with the service name as source', async () => {
      const bus = t.app.get(EventBus);
      const consumer = rabbit ? rabbit.queue('jobs') : `module-test-${uniqueSuffix(8)}`;
      const received: EventEnvelope<TranscribeJobFinishedData>[] = [];
      await bus.subscribe(consumer, [TranscribeJobFinished], async (e) => void received.push(e));

      const envelope = await t.app.get(Database).transaction(() =>
        t.app.get(Outbox).enqueue(TranscribeJobFinished, sample, { correlationId: 'req-1' }),
      );
      await waitFor('delivery', () => received.length === 1);
      expect(received[0]).toEqual({ ...envelope, source: 'transcribe-api', correlationId: 'req-1', data: sample });
    });

    if (useAmqp) {
      it('reports a consumer whose queue the broker refuses in /readyz while publishing goes on', async () => {
        const bus = t.app.get(EventBus);
        const consumer = rabbit!.queue('refused');
        // The queue exists without the dead-letter arguments the bus declares: PRECONDITION_FAILED.
        const admin = await connect(rabbit!.url);
        try {
          const channel = await admin.createChannel();
          await channel.assertQueue(consumer, { durable: true });
          await bus.subscribe(consumer, [TranscribeJobFinished], async () => undefined);

          const res = await t.http.get('/readyz').expect(503);
          expect(res.body.checks.broker.status).toBe('down');
          expect(res.body.checks.broker.error).toContain(`consumer "${consumer}"`);
          expect(res.body.checks.broker.error).toContain("PRECONDITION_FAILED - inequivalent arg 'x-dead-letter-exchange'");
          expect(res.body.checks.database).toEqual({ status: 'up' });
          await expect(bus.publish(TranscribeJobFinished, sample)).resolves.toBeUndefined();

          // Once the conflicting queue is gone the consumer's own retry declares it: ready again.
          await channel.deleteQueue(consumer);
          await waitFor('readiness', async () => (await t.http.get('/readyz')).status === 200);
        } finally {
          await admin.close().catch(() => undefined);
        }
      });
    }

    it('closes the bus with the app', async () => {
      const bus = t.app.get(EventBus);
      await t.close();
      if (bus instanceof AmqpEventBus) await expect(bus.check()).rejects.toThrow(/not connected/);
      await expect(bus.subscribe('after-close', [TranscribeJobFinished], async () => undefined)).rejects.toThrow(/closed/);
    });
  });
});

describe('MessagingModule in a command (`migrate`, custom commands)', () => {
  const cleanups: Array<() => Promise<unknown>> = [];

  afterEach(async () => {
    jest.restoreAllMocks();
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('leaves the events a command enqueues to the serving app: no relay runs in the command', async () => {
    // A serving app creates the schema (migrations on start); it is closed before the command runs.
    const first = await createTestApp(definition(), environment());
    cleanups.push(() => first.database!.drop());
    await first.app.close();
    const database = { DATABASE_URL: first.database!.url, ...(first.database!.schema ? { DATABASE_SCHEMA: first.database!.schema } : {}) };

    const seen: Array<{ relayActive: boolean; unsent: number }> = [];
    const command = definition({
      enqueue: {
        description: 'enqueue one event',
        run: async (ctx) => {
          await ctx.get(Database).transaction(() => ctx.get(Outbox).enqueue(TranscribeJobFinished, sample));
          // Long enough for a relay woken by the commit (EVENTS_OUTBOX_POLL_MS is 100) to have published.
          await new Promise((resolve) => setTimeout(resolve, 300));
          const unsent = await ctx.get(DataSource).getRepository(OutboxMessage).countBy({ sentAt: IsNull() });
          seen.push({ relayActive: ctx.get(OutboxRelay).active, unsent });
        },
      },
    });
    const exit = jest.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    await runService(command, { argv: ['enqueue'], env: { NODE_ENV: 'test', LOG_LEVEL: 'silent', ...environment(), ...database } });
    expect(exit).toHaveBeenCalledWith(0);
    expect(seen).toEqual([{ relayActive: false, unsent: 1 }]);

    // The serving app publishes it once it runs.
    const listener = new InProcessEventBus('listener-api');
    cleanups.push(() => listener.close());
    const received: EventEnvelope<TranscribeJobFinishedData>[] = [];
    await listener.subscribe(`module-test-${uniqueSuffix(8)}`, [TranscribeJobFinished], async (e) => void received.push(e));
    const serving = await createTestApp(definition(), { ...environment(), ...database });
    cleanups.push(() => serving.close());
    expect(serving.app.get(OutboxRelay).active).toBe(true);
    await waitFor('delivery by the serving app', () => received.length === 1);
    expect(received[0]).toMatchObject({ source: 'transcribe-api', data: sample });
  });
});
