import { storage, Store } from 'nestjs-pino/storage';
import pino from 'pino';
import { defineEvent, EventEnvelope } from '../contracts/event-contract';
import { AutomationEmailCaptured, eventCatalogue } from '../contracts/events';
import { InProcessBroker, InProcessEventBus } from './in-process-event-bus';

const Ping = defineEvent<{ n: number }>('test.ping');
const Pong = defineEvent<{ n: number }>('test.pong');

function setup() {
  const broker = new InProcessBroker({ retryDelayMs: 1, maxRetryDelayMs: 5 });
  return { broker, producer: new InProcessEventBus('producer-api', broker), consumer: new InProcessEventBus('consumer-api', broker) };
}

describe('InProcessEventBus', () => {
  it('delivers a published event asynchronously to every consumer bound to its type', async () => {
    const { broker, producer, consumer } = setup();
    const a: EventEnvelope<{ n: number }>[] = [];
    const b: EventEnvelope<{ n: number }>[] = [];
    await consumer.subscribe('consumer-a', [Ping], async (e) => void a.push(e));
    await consumer.subscribe('consumer-b', [Ping, Pong], async (e) => void b.push(e));

    await producer.publish(Ping, { n: 1 }, { correlationId: 'req-1' });
    await producer.publish(Pong, { n: 2 });
    expect(a).toHaveLength(0); // not delivered synchronously
    await broker.whenIdle();

    expect(a).toHaveLength(1);
    expect(a[0]).toMatchObject({ type: 'test.ping', source: 'producer-api', data: { n: 1 }, correlationId: 'req-1' });
    expect(a[0].id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(a[0].occurredAt).toISOString()).toBe(a[0].occurredAt);
    expect(b.map((e) => e.type).sort()).toEqual(['test.ping', 'test.pong']);
  });

  it('hands consumers a copy, never the producer object', async () => {
    const { broker, producer, consumer } = setup();
    const data = { n: 1 };
    let received: { n: number } | undefined;
    await consumer.subscribe('copy', [Ping], async (e) => {
      received = e.data;
    });
    await producer.publish(Ping, data);
    await broker.whenIdle();
    expect(received).toEqual(data);
    expect(received).not.toBe(data);
  });

  it('dispatches by type when one consumer subscribes several times', async () => {
    const { broker, producer, consumer } = setup();
    const seen: string[] = [];
    await consumer.subscribe('multi', [Ping], async (e) => void seen.push(`ping:${e.data.n}`));
    await consumer.subscribe('multi', [Pong], async (e) => void seen.push(`pong:${e.data.n}`));
    await producer.publish(Ping, { n: 1 });
    await producer.publish(Pong, { n: 2 });
    await broker.whenIdle();
    expect(seen.sort()).toEqual(['ping:1', 'pong:2']);
  });

  it('redelivers a failing event until the handler succeeds', async () => {
    const { broker, producer, consumer } = setup();
    let calls = 0;
    await consumer.subscribe('flaky', [Ping], async () => {
      calls++;
      if (calls < 3) throw new Error('temporary');
    });
    await producer.publish(Ping, { n: 1 });
    await broker.whenIdle();
    expect(calls).toBe(3);
    expect(broker.deadLetters('flaky')).toHaveLength(0);
  });

  it('dead-letters after maxRetries redeliveries', async () => {
    const { broker, producer, consumer } = setup();
    let calls = 0;
    await consumer.subscribe(
      'broken',
      [Ping],
      async () => {
        calls++;
        throw new Error('always');
      },
      { maxRetries: 2 },
    );
    await producer.publish(Ping, { n: 7 }, { id: '00000000-0000-4000-8000-000000000007' });
    await broker.whenIdle();
    expect(calls).toBe(3); // first delivery + 2 retries
    const dead = broker.deadLetters('broken');
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({ retries: 2, error: 'always' });
    expect(dead[0].envelope?.id).toBe('00000000-0000-4000-8000-000000000007');
    expect(broker.pending('broken')).toBe(0);
  });

  it('keeps at most prefetch handlers running per consumer', async () => {
    const { broker, producer, consumer } = setup();
    let running = 0;
    let peak = 0;
    await consumer.subscribe(
      'limited',
      [Ping],
      async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setImmediate(r));
        running--;
      },
      { prefetch: 2 },
    );
    for (let n = 0; n < 6; n++) await producer.publish(Ping, { n });
    await broker.whenIdle();
    expect(peak).toBe(2);
  });

  it('close() waits for in-flight handlers and stops delivery; messages wait for the next subscriber', async () => {
    const { broker, producer, consumer } = setup();
    let finished = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    await consumer.subscribe('closing', [Ping], async () => {
      await gate;
      finished++;
    });
    await producer.publish(Ping, { n: 1 });
    await new Promise((r) => setImmediate(r));
    const closed = consumer.close();
    await producer.publish(Ping, { n: 2 });
    release();
    await closed;
    expect(finished).toBe(1);
    expect(broker.pending('closing')).toBe(1);

    const again = new InProcessEventBus('consumer-api', broker);
    const seen: number[] = [];
    await again.subscribe('closing', [Ping], async (e) => void seen.push(e.data.n));
    await broker.whenIdle();
    expect(seen).toEqual([2]);
  });

  it('close() does not wait for the retry delay of a handler that failed while closing; the message stays queued', async () => {
    const broker = new InProcessBroker({ retryDelayMs: 60_000, maxRetryDelayMs: 60_000 });
    const producer = new InProcessEventBus('producer-api', broker);
    const consumer = new InProcessEventBus('consumer-api', broker);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    await consumer.subscribe('retry-on-close', [Ping], async () => {
      await gate;
      throw new Error('database already closing');
    });
    await producer.publish(Ping, { n: 1 });
    await new Promise((r) => setImmediate(r));
    const closed = consumer.close();
    release();
    // Resolves once the handler has settled, not a minute later when the retry is due.
    await closed;
    expect(broker.pending('retry-on-close')).toBe(1);
  });

  it("runs handlers with the subscribing app's logger bound to the event's correlation id", async () => {
    const { broker, producer } = setup();
    const lines: Array<Record<string, unknown>> = [];
    const appLogger = pino({ base: { service: 'consumer-api' } }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const consumer = new InProcessEventBus('consumer-api', broker);
    await storage.run(new Store(appLogger), () =>
      consumer.subscribe('logging', [Ping], async () => {
        storage.getStore()?.logger.info('handled');
      }),
    );
    // Published from another app's request context: the handler still logs as the consumer.
    const requestLogger = pino({ base: { service: 'producer-api' } }, { write: () => undefined });
    await storage.run(new Store(requestLogger), () => producer.publish(Ping, { n: 1 }, { correlationId: 'req-9', id: '11111111-1111-4111-8111-111111111111' }));
    await broker.whenIdle();
    expect(lines).toEqual([
      expect.objectContaining({
        msg: 'handled',
        service: 'consumer-api',
        correlationId: 'req-9',
        eventId: '11111111-1111-4111-8111-111111111111',
        eventType: 'test.ping',
      }),
    ]);
  });

  it("carries the request id of the publishing context, and a handler's follow-up events keep it", async () => {
    const { broker, producer, consumer } = setup();
    const appLogger = pino({ base: { service: 'consumer-api' } }, { write: () => undefined });
    const seen: Array<[string, string | undefined]> = [];
    await storage.run(new Store(appLogger), async () => {
      await consumer.subscribe('first-hop', [Ping], async (e) => {
        seen.push([e.type, e.correlationId]);
        await consumer.publish(Pong, { n: e.data.n }); // no correlationId given
      });
      await consumer.subscribe('second-hop', [Pong], async (e) => void seen.push([e.type, e.correlationId]));
    });
    // As in an HTTP request: pino-http binds `requestId` to the request's logger.
    const requestLogger = pino({ base: { service: 'producer-api' } }, { write: () => undefined }).child({ requestId: 'req-abc' });
    await storage.run(new Store(requestLogger), () => producer.publish(Ping, { n: 1 }));
    await producer.publish(Ping, { n: 2 }); // outside any request: none
    await broker.whenIdle();
    expect(seen).toHaveLength(4);
    expect(seen).toEqual(
      expect.arrayContaining([
        ['test.ping', 'req-abc'],
        ['test.ping', undefined],
        ['test.pong', 'req-abc'],
        ['test.pong', undefined],
      ]),
    );
  });

  it('check() always succeeds and the shared broker is a process-wide singleton', async () => {
    await expect(new InProcessEventBus('x').check()).resolves.toBeUndefined();
    expect(InProcessBroker.shared()).toBe(InProcessBroker.shared());
    expect(new InProcessEventBus('x').broker).toBe(InProcessBroker.shared());
  });

  it('rejects bad consumer names and an empty event list', async () => {
    const { consumer } = setup();
    await expect(consumer.subscribe('bad name', [Ping], async () => undefined)).rejects.toThrow(/Invalid consumer name/);
    await expect(consumer.subscribe('x.dlq', [Ping], async () => undefined)).rejects.toThrow(/Invalid consumer name/);
    await expect(consumer.subscribe('ok', [], async () => undefined)).rejects.toThrow(/at least one event/);
  });
});

describe('event catalogue', () => {
  it('defines the routing keys of ARCHITECTURE.md', () => {
    expect(eventCatalogue.map((e) => e.type)).toEqual([
      'automation.email_captured',
      'automation.link_sent',
      'automation.link_clicked',
      'email.event_tracked',
      'transcribe.job_finished',
      'logistics.error_reported',
      'auth.session_revoked',
      'auth.user_created',
      'email.received',
      'knowledge.source_added',
      'knowledge.source_updated',
    ]);
    expect(AutomationEmailCaptured.type).toBe('automation.email_captured');
  });

  it('refuses malformed event types', () => {
    expect(() => defineEvent('NoDots')).toThrow(/Invalid event type/);
  });
});
