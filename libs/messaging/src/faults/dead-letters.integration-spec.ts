import { Injectable, Module } from '@nestjs/common';
import { BaseConfig, type ServiceDefinition } from '@platform/platform';
import { createTestApp, createTestRabbit, testServices, uniqueSuffix, type TestApp, type TestRabbit } from '@platform/testing';
import { defineEvent, type EventEnvelope } from '../contracts/event-contract';
import { AutomationEmailCaptured, type AutomationEmailCapturedData } from '../contracts/events';
import { EventConsumer, OnEvent } from '../consumers/event-consumer.decorators';
import { EventBus } from '../event-bus';
import { MessagingModule } from '../messaging.module';
import { waitFor } from '../test-helpers';

const Poison = defineEvent<{ n: number }>('test.poison');

@Injectable()
class Calls {
  poison = 0;
  captured: string[] = [];
}

/** Crashes on every delivery. */
@Injectable()
@EventConsumer('test-api.crashing', { inbox: false, maxRetries: 2 })
class CrashingConsumer {
  constructor(private readonly calls: Calls) {}

  @OnEvent(Poison)
  async poison(): Promise<void> {
    this.calls.poison++;
    throw new Error('this consumer always crashes');
  }
}

/** Stands for email-api's consumer of the catalogue (EVENT_CONSUMERS), started after the publisher. */
@Injectable()
@EventConsumer('email-api.automation', { inbox: false })
class LateConsumer {
  constructor(private readonly calls: Calls) {}

  @OnEvent(AutomationEmailCaptured)
  async captured(event: EventEnvelope<AutomationEmailCapturedData>): Promise<void> {
    this.calls.captured.push(event.data.email);
  }
}

function definition(name: string, consumers: Array<new (...args: never[]) => unknown>): ServiceDefinition {
  @Module({ imports: [MessagingModule.forRoot()], providers: [Calls, ...consumers] })
  class RootModule {}
  return { name, port: 0, config: BaseConfig, module: () => ({ module: RootModule }) };
}

function metric(text: string, name: string, consumer: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(`consumer="${consumer}"`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

const captured: AutomationEmailCapturedData = {
  accountId: 'acc-1',
  emailPublicKey: 'pk_test',
  igUserId: 'ig-1',
  igUsername: null,
  automationId: 'auto-1',
  runId: 'run-1',
  email: 'early@example.com',
  automationName: null,
  tags: [],
};

describe('dead letters and consumers that start late', () => {
  const variants: Array<[string, boolean]> = [['the in-process bus', false]];
  if (testServices().amqpUrl) variants.push(['RabbitMQ', true]);

  describe.each(variants)('on %s', (_label, useAmqp) => {
    let rabbit: TestRabbit | undefined;
    let prefix: string;
    let env: Record<string, string>;
    const apps: TestApp[] = [];

    beforeAll(async () => {
      rabbit = useAmqp ? await createTestRabbit() : undefined;
      prefix = rabbit ? `${rabbit.prefix}.` : `t${uniqueSuffix(8)}.`;
      for (const name of ['test-api.crashing', 'email-api.automation', 'off.email-api.automation']) rabbit?.queue(name);
      env = { EVENTS_QUEUE_PREFIX: prefix, ...(rabbit ? { AMQP_URL: rabbit.url, EVENTS_EXCHANGE: rabbit.exchange, EVENTS_DLX: rabbit.dlx } : {}) };
    });

    afterAll(async () => {
      for (const t of apps.reverse()) await t.close();
      await rabbit?.cleanup();
    });

    it('moves a message that crashes its consumer to the DLQ after maxRetries redeliveries, and /metrics shows it', async () => {
      const t = await createTestApp(definition('test-api', [CrashingConsumer]), env);
      apps.push(t);
      const queue = `${prefix}test-api.crashing`;
      const before = (await t.http.get('/metrics').expect(200)).text;
      expect(metric(before, 'events_dead_lettered_total', queue)).toBe(0);

      await t.app.get(EventBus).publish(Poison, { n: 1 });
      const calls = t.app.get(Calls);
      let text = '';
      await waitFor(
        'the dead letter in /metrics',
        async () => {
          text = (await t.http.get('/metrics')).text;
          return metric(text, 'events_dlq_messages', queue) === 1 && metric(text, 'events_dead_lettered_total', queue) === 1;
        },
        20_000,
      );
      // The first delivery and two redeliveries, then no more.
      expect(calls.poison).toBe(3);
      expect(text).toMatch(new RegExp(`events_consumed_total\\{[^}]*consumer="${queue.replace(/\./g, '\\.')}"[^}]*outcome="retried"[^}]*\\} 2`));
    });

    it("keeps an event published before its consumer's queue exists, and delivers it once the consumer starts", async () => {
      const publisher = await createTestApp(definition('automation-api', []), env);
      apps.push(publisher);
      await publisher.app.get(EventBus).publish(AutomationEmailCaptured, captured);

      const consumer = await createTestApp(definition('email-api', [LateConsumer]), env);
      apps.push(consumer);
      const calls = consumer.app.get(Calls);
      await waitFor('the early event', () => calls.captured.length > 0);
      expect(calls.captured).toEqual(['early@example.com']);
    });

    it('loses such an event with EVENTS_DECLARE_CONSUMERS=false (what the declaration prevents)', async () => {
      const off = { ...env, EVENTS_QUEUE_PREFIX: `${prefix}off.`, EVENTS_DECLARE_CONSUMERS: 'false' };
      const publisher = await createTestApp(definition('automation-api', []), off);
      apps.push(publisher);
      const bus = publisher.app.get(EventBus);
      await bus.publish(AutomationEmailCaptured, { ...captured, email: 'lost@example.com' });

      const consumer = await createTestApp(definition('email-api', [LateConsumer]), off);
      apps.push(consumer);
      const calls = consumer.app.get(Calls);
      // One queue delivers in order: once the later event is in, the earlier one would have been too.
      await bus.publish(AutomationEmailCaptured, { ...captured, email: 'later@example.com' });
      await waitFor('the later event', () => calls.captured.length > 0);
      expect(calls.captured).toEqual(['later@example.com']);
    });
  });
});
