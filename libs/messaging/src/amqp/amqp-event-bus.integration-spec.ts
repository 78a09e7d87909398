import { Logger } from '@nestjs/common';
import { createTestRabbit, testServices, type TestRabbit } from '@platform/testing';
import { connect, type ChannelModel, type Channel } from 'amqplib';
import { defineEvent, EventEnvelope } from '../contracts/event-contract';
import { BrokerUnavailableError } from '../event-bus';
import { AmqpEventBus, type AmqpEventBusOptions } from './amqp-event-bus';
import { waitFor } from '../test-helpers';

const OrderPlaced = defineEvent<{ orderId: string }>('test.order_placed');
const OrderShipped = defineEvent<{ orderId: string }>('test.order_shipped');

describe('AmqpEventBus without a broker', () => {
  it('fails fast while the broker is unreachable, and check() reports it', async () => {
    const bus = new AmqpEventBus({ url: 'amqp://guest:secret@127.0.0.1:1', source: 'test-api', reconnectDelayMs: 1000 });
    await expect(bus.start()).resolves.toBeUndefined();
    expect(bus.connected).toBe(false);
    await expect(bus.check()).rejects.toBeInstanceOf(BrokerUnavailableError);
    const failure = bus.publish(OrderPlaced, { orderId: 'x' });
    await expect(failure).rejects.toBeInstanceOf(BrokerUnavailableError);
    await expect(failure).rejects.toThrow(/not connected.*Outbox/);
    const error = await bus.check().catch((e: Error) => e);
    expect(String(error)).toContain('127.0.0.1:1');
    expect(String(error)).not.toContain('secret');
    // Subscribing while disconnected is accepted: the consumer is set up once connected.
    await expect(bus.subscribe('later-consumer', [OrderPlaced], async () => undefined)).resolves.toBeUndefined();
    await bus.close();
  });
});

// Needs the RabbitMQ the test setup found (TEST_AMQP_URL); without one, apps use the in-process bus.
const withRabbit = testServices().amqpUrl ? describe : () => undefined;

withRabbit('AmqpEventBus (RabbitMQ)', () => {
  let rabbit: TestRabbit;
  let admin: ChannelModel;
  let adminChannel: Channel;
  const buses: AmqpEventBus[] = [];

  function newBus(opts: Partial<AmqpEventBusOptions> = {}): AmqpEventBus {
    const bus = new AmqpEventBus({
      url: rabbit.url,
      source: 'test-api',
      exchange: rabbit.exchange,
      dlx: rabbit.dlx,
      retryDelayMs: 10,
      maxRetryDelayMs: 50,
      reconnectDelayMs: 50,
      maxReconnectDelayMs: 500,
      ...opts,
    });
    buses.push(bus);
    return bus;
  }

  beforeAll(async () => {
    rabbit = await createTestRabbit();
    admin = await connect(rabbit.url);
    adminChannel = await admin.createChannel();
  });

  /** Consumers of a queue, or -1 while it does not exist (probed on a throwaway channel: a 404 closes it). */
  async function consumerCount(queue: string): Promise<number> {
    const probe = await admin.createChannel();
    probe.on('error', () => undefined);
    try {
      return (await probe.checkQueue(queue)).consumerCount;
    } catch {
      return -1;
    } finally {
      await probe.close().catch(() => undefined);
    }
  }

  afterEach(async () => {
    // Each test's consumers stop, so later tests' events reach only their own queues.
    await Promise.all(buses.splice(0).map((b) => b.close()));
  });

  afterAll(async () => {
    await admin?.close().catch(() => undefined);
    await rabbit?.cleanup();
  });

  it('publishes with confirms and delivers a persistent envelope with correlation id to the consumer queue', async () => {
    const bus = newBus();
    await bus.start();
    expect(bus.connected).toBe(true);
    await expect(bus.check()).resolves.toBeUndefined();

    // A tap queue to inspect the raw message as other services see it.
    const tap = rabbit.queue('tap');
    await adminChannel.assertQueue(tap, { durable: false });
    await adminChannel.bindQueue(tap, rabbit.exchange, OrderPlaced.type);

    const consumer = rabbit.queue('orders');
    const received: EventEnvelope<{ orderId: string }>[] = [];
    await bus.subscribe(consumer, [OrderPlaced], async (e) => void received.push(e));

    await bus.publish(OrderPlaced, { orderId: 'o-1' }, { correlationId: 'req-42' });
    await waitFor('delivery', () => received.length === 1);
    expect(received[0]).toMatchObject({
      type: 'test.order_placed',
      source: 'test-api',
      data: { orderId: 'o-1' },
      correlationId: 'req-42',
    });

    const raw = await adminChannel.get(tap, { noAck: true });
    expect(raw).not.toBe(false);
    if (raw === false) return;
    expect(raw.properties.messageId).toBe(received[0].id);
    expect(raw.properties.deliveryMode).toBe(2);
    expect(raw.properties.contentType).toBe('application/json');
    expect(raw.properties.headers?.['x-correlation-id']).toBe('req-42');
    expect(JSON.parse(raw.content.toString())).toEqual({
      id: received[0].id,
      type: 'test.order_placed',
      occurredAt: received[0].occurredAt,
      source: 'test-api',
      data: { orderId: 'o-1' },
    });

    // The consumer's queues exist and are durable.
    for (const q of [consumer, `${consumer}.retry`, `${consumer}.dlq`]) {
      await expect(adminChannel.checkQueue(q)).resolves.toMatchObject({ queue: q });
    }
  });

  it('routes each type to its handler when one consumer subscribes twice', async () => {
    const bus = newBus();
    await bus.start();
    const consumer = rabbit.queue('two-handlers');
    const seen: string[] = [];
    await bus.subscribe(consumer, [OrderPlaced], async (e) => void seen.push(`placed:${e.data.orderId}`));
    await bus.subscribe(consumer, [OrderShipped], async (e) => void seen.push(`shipped:${e.data.orderId}`));
    await bus.publish(OrderPlaced, { orderId: 'a' });
    await bus.publish(OrderShipped, { orderId: 'b' });
    await waitFor('both deliveries', () => seen.length === 2);
    expect(seen.sort()).toEqual(['placed:a', 'shipped:b']);
  });

  it('redelivers a failing message with x-retries, then dead-letters it to <consumer>.dlq after maxRetries', async () => {
    const bus = newBus();
    await bus.start();
    const consumer = rabbit.queue('failing');
    let calls = 0;
    let flakyCalls = 0;
    await bus.subscribe(
      consumer,
      [OrderPlaced],
      async (e) => {
        if (e.data.orderId === 'flaky') {
          flakyCalls++;
          if (flakyCalls < 2) throw new Error('temporary');
          return;
        }
        calls++;
        throw new Error(`cannot handle ${e.data.orderId}`);
      },
      { maxRetries: 2 },
    );
    await bus.publish(OrderPlaced, { orderId: 'flaky' });
    await bus.publish(OrderPlaced, { orderId: 'poison' }, { id: '3f7c1a52-9c3e-4d55-8f4e-0a1b2c3d4e5f' });

    const dlq = `${consumer}.dlq`;
    await waitFor('the dead letter', async () => (await adminChannel.checkQueue(dlq)).messageCount === 1);
    expect(calls).toBe(3); // first delivery + 2 retries
    expect(flakyCalls).toBe(2); // succeeded on its first retry, never dead-lettered

    const dead = await adminChannel.get(dlq, { noAck: true });
    expect(dead).not.toBe(false);
    if (dead === false) return;
    expect(dead.properties.messageId).toBe('3f7c1a52-9c3e-4d55-8f4e-0a1b2c3d4e5f');
    expect(dead.properties.headers?.['x-retries']).toBe(2);
    expect(dead.properties.headers?.['x-error']).toBe('cannot handle poison');
    expect(dead.properties.headers?.['x-original-routing-key']).toBe(consumer);
    expect(JSON.parse(dead.content.toString()).data).toEqual({ orderId: 'poison' });
    expect((await adminChannel.checkQueue(consumer)).messageCount).toBe(0);
    expect((await adminChannel.checkQueue(`${consumer}.retry`)).messageCount).toBe(0);
  });

  it('dead-letters a message that is not an envelope without calling the handler', async () => {
    const bus = newBus();
    await bus.start();
    const consumer = rabbit.queue('malformed');
    let calls = 0;
    await bus.subscribe(consumer, [OrderPlaced], async () => void calls++);
    adminChannel.publish(rabbit.exchange, OrderPlaced.type, Buffer.from('not json'));
    await waitFor('the dead letter', async () => (await adminChannel.checkQueue(`${consumer}.dlq`)).messageCount === 1);
    expect(calls).toBe(0);
  });

  it('reconnects after the connection dies, re-subscribes its consumers and keeps the process alive', async () => {
    const bus = newBus();
    await bus.start();
    const consumer = rabbit.queue('reconnect');
    const received: string[] = [];
    await bus.subscribe(consumer, [OrderPlaced], async (e) => void received.push(e.data.orderId));
    await bus.publish(OrderPlaced, { orderId: 'before' });
    await waitFor('first delivery', () => received.length === 1);

    const first = bus.rawConnection as unknown as { connection: { stream: { destroy(err?: Error): void } } };
    first.connection.stream.destroy(new Error('simulated network failure'));
    await waitFor('the disconnect', () => bus.rawConnection !== first as unknown);
    await bus.waitUntilConnected();
    expect(bus.rawConnection).not.toBe(first);
    await expect(bus.check()).resolves.toBeUndefined();

    await bus.publish(OrderPlaced, { orderId: 'after' });
    await waitFor('delivery after the reconnect', () => received.includes('after'));
    // At-least-once: 'before' comes again if its ack was lost with the socket; consumers dedupe by id.
    expect([...new Set(received)]).toEqual(['before', 'after']);
  });

  it('isolates a consumer whose queue cannot be declared: publishing and other consumers go on, check() names it, and it recovers', async () => {
    // A's queue already exists without the dead-letter arguments the bus declares: RabbitMQ refuses
    // the redeclaration with PRECONDITION_FAILED and closes the channel that tried.
    const a = rabbit.queue('conflicting');
    const b = rabbit.queue('healthy');
    await adminChannel.assertQueue(a, { durable: true });
    // The failure and the recovery are logged (captured here: they are what an operator reads).
    const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const logs = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    const bus = newBus();
    const gotA: string[] = [];
    const gotB: string[] = [];
    // Subscribed before start: both are set up by the connect itself.
    await bus.subscribe(a, [OrderPlaced], async (e) => void gotA.push(e.data.orderId));
    await bus.subscribe(b, [OrderPlaced], async (e) => void gotB.push(e.data.orderId));
    await bus.start();
    expect(bus.connected).toBe(true);

    await bus.publish(OrderPlaced, { orderId: 'first' });
    await waitFor('delivery to the healthy consumer', () => gotB.includes('first'));

    // Readiness names the consumer, its queue, the broker's reason and what to do; it is not "broker unavailable".
    const consumerProblem = () =>
      bus.check().then(
        () => null,
        (e: Error) => e,
      );
    const problem = await consumerProblem();
    expect(problem).not.toBeNull();
    expect(problem).not.toBeInstanceOf(BrokerUnavailableError);
    expect(problem?.message).toContain(`consumer "${a}"`);
    expect(problem?.message).toContain(`queue "${a}"`);
    expect(problem?.message).toContain("PRECONDITION_FAILED - inequivalent arg 'x-dead-letter-exchange'");
    expect(problem?.message).toContain('delete the queue');
    expect(problem?.message).not.toContain(b);

    // A broker outage meanwhile: the reconnect re-establishes publishing and B, and A keeps failing alone.
    const first = bus.rawConnection as unknown as { connection: { stream: { destroy(err?: Error): void } } };
    first.connection.stream.destroy(new Error('simulated network failure'));
    await waitFor('the reconnect', () => bus.connected && bus.rawConnection !== (first as unknown));
    await waitFor('A to be reported again', async () => (await consumerProblem())?.message.includes(a) ?? false);
    await bus.publish(OrderPlaced, { orderId: 'second' });
    await waitFor('delivery to B after the reconnect', () => gotB.includes('second'));

    // Removing the conflicting queue lets A's own retry declare it and start consuming.
    const connection = bus.rawConnection;
    await adminChannel.deleteQueue(a);
    await waitFor('the consumer to recover', async () => (await consumerProblem()) === null);
    await bus.publish(OrderPlaced, { orderId: 'third' });
    await waitFor('delivery to both consumers', () => gotA.includes('third') && gotB.includes('third'));
    expect(gotA).toEqual(['third']);
    expect([...new Set(gotB)]).toEqual(['first', 'second', 'third']);
    expect(bus.rawConnection).toBe(connection);
    expect(errors.mock.calls.map(([message]) => String(message))).toContainEqual(
      expect.stringMatching(new RegExp(`Consumer "${a}" is not consuming: .*PRECONDITION_FAILED`)),
    );
    expect(logs.mock.calls.map(([message]) => String(message))).toContainEqual(expect.stringContaining(`Consumer "${a}" is consuming again`));
    errors.mockRestore();
    logs.mockRestore();
  });

  it('re-declares only the consumer whose queue was deleted under it, keeping the connection', async () => {
    const bus = newBus();
    await bus.start();
    const connection = bus.rawConnection;
    const a = rabbit.queue('deleted');
    const b = rabbit.queue('untouched');
    const gotA: string[] = [];
    const gotB: string[] = [];
    await bus.subscribe(a, [OrderPlaced], async (e) => void gotA.push(e.data.orderId));
    await bus.subscribe(b, [OrderPlaced], async (e) => void gotB.push(e.data.orderId));

    // The broker cancels A's consumer; A declares its queue again (with its bindings) on a new channel.
    await adminChannel.deleteQueue(a);
    await waitFor('the queue to be declared again', async () => (await consumerCount(a)) === 1);
    await bus.publish(OrderPlaced, { orderId: 'after' });
    await waitFor('delivery to both consumers', () => gotA.includes('after') && gotB.includes('after'));
    expect(bus.rawConnection).toBe(connection);
    await expect(bus.check()).resolves.toBeUndefined();
  });

  it('close() lets in-flight handlers finish and leaves unconsumed messages in the queue', async () => {
    const bus = newBus({ prefetch: 1 });
    await bus.start();
    const consumer = rabbit.queue('closing');
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const finished: string[] = [];
    await bus.subscribe(consumer, [OrderPlaced], async (e) => {
      await gate;
      finished.push(e.data.orderId);
    });
    await bus.publish(OrderPlaced, { orderId: 'one' });
    await bus.publish(OrderPlaced, { orderId: 'two' });
    await waitFor('the first handler to start', async () => (await adminChannel.checkQueue(consumer)).messageCount === 1);

    const closed = bus.close();
    release();
    await closed;
    expect(finished).toEqual(['one']);
    await expect(bus.check()).rejects.toBeInstanceOf(BrokerUnavailableError);
    // 'one' was acked, 'two' is still waiting for the next consumer.
    const left = await adminChannel.checkQueue(consumer);
    expect(left.messageCount).toBe(1);
    expect(left.consumerCount).toBe(0);
  });

  it('close() also waits for the handlers of a consumer whose set-up was still running', async () => {
    // A queue with a message waiting, before the consumer under test exists.
    const late = rabbit.queue('late');
    const first = newBus();
    await first.start();
    await first.subscribe(late, [OrderShipped], async () => undefined);
    await first.close();
    const bus = newBus();
    await bus.start();
    await bus.publish(OrderShipped, { orderId: 'waiting' });

    // close() is held up by an in-flight handler of another consumer…
    const busy = rabbit.queue('busy');
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let busyStarted = false;
    await bus.subscribe(busy, [OrderPlaced], async () => {
      busyStarted = true;
      await gate;
    });
    await bus.publish(OrderPlaced, { orderId: 'slow' });
    await waitFor('the busy handler', () => busyStarted);

    // …while the late consumer is still being set up, and starts handling its message meanwhile.
    let lateRunning = 0;
    let lateStarted = false;
    const subscribed = bus.subscribe(late, [OrderShipped], async () => {
      lateStarted = true;
      lateRunning++;
      await new Promise((r) => setTimeout(r, 200));
      lateRunning--;
    });
    await new Promise((r) => setImmediate(r)); // the set-up is under way
    const closed = bus.close();
    await subscribed;
    await waitFor('the late handler', () => lateStarted);
    release();
    await closed;
    expect(lateRunning).toBe(0);
  });
});
