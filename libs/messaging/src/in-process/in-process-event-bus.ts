import { AsyncResource } from 'node:async_hooks';
import { Logger } from '@nestjs/common';
import {
  createEnvelope,
  decodeEnvelope,
  encodeEnvelope,
  EventContract,
  EventEnvelope,
  PublishOptions,
} from '../contracts/event-contract';
import {
  BrokerUnavailableError,
  DEFAULT_MAX_RETRIES,
  type DeliveryOutcome,
  DEFAULT_PREFETCH,
  EventBus,
  EventHandler,
  retryDelay,
  SubscribeOptions,
  validateConsumerName,
} from '../event-bus';
import { consumerQueuesOf } from '../contracts/consumers';
import { runInEventContext, withContextCorrelation } from '../log-context';

interface QueuedMessage {
  body: string;
  correlationId?: string;
  retries: number;
}

export interface DeadLetter {
  envelope: EventEnvelope<unknown> | null;
  body: string;
  retries: number;
  error: string;
}

/** Dead letters kept per consumer (oldest dropped first): memory is all the in-process DLQ has. */
const MAX_DEAD_LETTERS = 1000;
/** Messages kept for a declared consumer that never subscribed (oldest dropped first). */
const MAX_WAITING_FOR_CONSUMER = 10_000;

class ConsumerQueue {
  readonly types = new Set<string>();
  readonly handlers = new Map<string, EventHandler>();
  readonly ready: QueuedMessage[] = [];
  readonly dead: DeadLetter[] = [];
  readonly timers = new Set<NodeJS.Timeout>();
  inFlight = 0;
  active = false;
  /** True once a subscriber bound it (a queue declared by a publisher waits for its first one). */
  everBound = false;
  /** The subscribing bus's delivery observer. */
  observe: (consumer: string, outcome: DeliveryOutcome) => void = () => undefined;
  /**
   * The async context of the subscriber (its app's logger): handlers run in it, not in the context
   * of whichever request published the event.
   */
  scope = new AsyncResource('InProcessConsumer');
  idleWaiters: Array<() => void> = [];
  /** `detach` waits here for the running handlers only: a pending retry stays queued (as in RabbitMQ). */
  drainWaiters: Array<() => void> = [];

  constructor(
    readonly name: string,
    public prefetch: number,
    public maxRetries: number,
  ) {}

  addDead(letter: DeadLetter): void {
    this.dead.push(letter);
    if (this.dead.length > MAX_DEAD_LETTERS) this.dead.shift();
  }

  get busy(): boolean {
    return this.inFlight > 0 || this.timers.size > 0 || (this.active && this.ready.length > 0);
  }
}

export interface InProcessBrokerOptions {
  /** First redelivery delay; doubles per attempt. Default 1000 ms. */
  retryDelayMs?: number;
  /** Cap of the redelivery delay. Default 30 s. */
  maxRetryDelayMs?: number;
}

/**
 * The message broker of one process: a queue per consumer, bound to event types, with the same
 * semantics as the RabbitMQ topology (async delivery, prefetch, bounded retries, dead letters).
 * Messages are serialised to JSON on publish, so handlers never share objects with the producer.
 * Nothing is durable: a message in memory is lost when the process stops.
 */
export class InProcessBroker {
  private readonly queues = new Map<string, ConsumerQueue>();
  private readonly logger = new Logger('InProcessBroker');
  private readonly retryDelayMs: number;
  private readonly maxRetryDelayMs: number;

  constructor(opts: InProcessBrokerOptions = {}) {
    this.retryDelayMs = opts.retryDelayMs ?? 1000;
    this.maxRetryDelayMs = opts.maxRetryDelayMs ?? 30_000;
  }

  /** The broker shared by every app of this process (`npm start` runs all apps in one process). */
  static shared(): InProcessBroker {
    const key = Symbol.for('@platform/messaging/in-process-broker');
    const holder = globalThis as unknown as Record<symbol, InProcessBroker | undefined>;
    holder[key] ??= new InProcessBroker();
    return holder[key];
  }

  publish(envelope: EventEnvelope<unknown>): void {
    const body = encodeEnvelope(envelope).toString('utf8');
    for (const queue of this.queues.values()) {
      if (!queue.types.has(envelope.type)) continue;
      queue.ready.push({ body, correlationId: envelope.correlationId, retries: 0 });
      if (!queue.everBound && queue.ready.length > MAX_WAITING_FOR_CONSUMER) queue.ready.shift();
      this.schedule(queue);
    }
  }

  /**
   * Creates the queues of consumers that have not subscribed yet, bound to `type`, so that events
   * published now wait for them (as the AMQP adapter declares them on the broker).
   */
  declare(consumers: string[], type: string): void {
    for (const consumer of consumers) {
      let queue = this.queues.get(consumer);
      if (!queue) {
        queue = new ConsumerQueue(consumer, DEFAULT_PREFETCH, DEFAULT_MAX_RETRIES);
        this.queues.set(consumer, queue);
      }
      queue.types.add(type);
    }
  }

  bind(
    consumer: string,
    types: string[],
    handler: EventHandler,
    opts: SubscribeOptions = {},
    observe?: (consumer: string, outcome: DeliveryOutcome) => void,
  ): void {
    let queue = this.queues.get(consumer);
    if (!queue) {
      queue = new ConsumerQueue(
        consumer,
        opts.prefetch ?? DEFAULT_PREFETCH,
        opts.maxRetries ?? DEFAULT_MAX_RETRIES,
      );
      this.queues.set(consumer, queue);
    } else if (!queue.active) {
      // A consumer coming back (an app restarted in the same process) takes the latest settings.
      queue.prefetch = opts.prefetch ?? queue.prefetch;
      queue.maxRetries = opts.maxRetries ?? queue.maxRetries;
    }
    for (const type of types) {
      queue.types.add(type);
      queue.handlers.set(type, handler);
    }
    queue.scope = new AsyncResource('InProcessConsumer');
    if (observe) queue.observe = observe;
    queue.active = true;
    queue.everBound = true;
    this.schedule(queue);
  }

  /** Stops handing out messages of these consumers and waits for their in-flight handlers. */
  async detach(consumers: Iterable<string>): Promise<void> {
    const waits: Promise<void>[] = [];
    for (const name of consumers) {
      const queue = this.queues.get(name);
      if (!queue) continue;
      queue.active = false;
      queue.handlers.clear();
      if (queue.inFlight > 0) waits.push(new Promise((resolve) => queue.drainWaiters.push(resolve)));
    }
    await Promise.all(waits);
  }

  /** Messages that exhausted their retries (the in-process `<consumer>.dlq`). */
  deadLetters(consumer: string): DeadLetter[] {
    return [...(this.queues.get(consumer)?.dead ?? [])];
  }

  /** Number of messages waiting (ready or delayed for a retry) for a consumer. */
  pending(consumer: string): number {
    const queue = this.queues.get(consumer);
    return queue ? queue.ready.length + queue.timers.size : 0;
  }

  /** Resolves when no active consumer has work ready, in flight or waiting for a retry. */
  async whenIdle(): Promise<void> {
    for (;;) {
      const busy = [...this.queues.values()].filter((q) => q.busy);
      if (busy.length === 0) return;
      await Promise.all(busy.map((q) => new Promise<void>((resolve) => q.idleWaiters.push(resolve))));
    }
  }

  private schedule(queue: ConsumerQueue): void {
    setImmediate(() => this.pump(queue));
  }

  private pump(queue: ConsumerQueue): void {
    while (queue.active && queue.inFlight < queue.prefetch && queue.ready.length > 0) {
      const message = queue.ready.shift() as QueuedMessage;
      queue.inFlight++;
      void queue.scope.runInAsyncScope(() => this.deliver(queue, message)).finally(() => {
        queue.inFlight--;
        this.pump(queue);
        this.notifyIdle(queue);
      });
    }
    this.notifyIdle(queue);
  }

  private notifyIdle(queue: ConsumerQueue): void {
    if (queue.inFlight === 0 && queue.drainWaiters.length > 0) {
      const drained = queue.drainWaiters;
      queue.drainWaiters = [];
      for (const resolve of drained) resolve();
    }
    if (queue.busy || queue.idleWaiters.length === 0) return;
    const waiters = queue.idleWaiters;
    queue.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private async deliver(queue: ConsumerQueue, message: QueuedMessage): Promise<void> {
    let envelope: EventEnvelope<unknown>;
    try {
      envelope = decodeEnvelope(message.body, message.correlationId);
    } catch (err) {
      queue.addDead({ envelope: null, body: message.body, retries: message.retries, error: (err as Error).message });
      queue.observe(queue.name, 'dead_lettered');
      return;
    }
    const handler = queue.handlers.get(envelope.type);
    if (!handler) {
      this.logger.warn(`Consumer ${queue.name} has no handler for ${envelope.type}; event ${envelope.id} dropped`);
      return;
    }
    await runInEventContext(envelope, () => this.runHandler(queue, message, envelope, handler));
  }

  private async runHandler(
    queue: ConsumerQueue,
    message: QueuedMessage,
    envelope: EventEnvelope<unknown>,
    handler: EventHandler,
  ): Promise<void> {
    try {
      await handler(envelope);
      queue.observe(queue.name, 'handled');
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      if (message.retries >= queue.maxRetries) {
        this.logger.error(
          `Consumer ${queue.name} failed on ${envelope.type} ${envelope.id} after ${message.retries} retries, dead-lettered: ${error}`,
        );
        queue.addDead({ envelope, body: message.body, retries: message.retries, error });
        queue.observe(queue.name, 'dead_lettered');
        return;
      }
      const attempt = message.retries + 1;
      const delay = retryDelay(attempt, this.retryDelayMs, this.maxRetryDelayMs);
      this.logger.warn(
        `Consumer ${queue.name} failed on ${envelope.type} ${envelope.id} (retry ${attempt}/${queue.maxRetries} in ${delay} ms): ${error}`,
      );
      const timer = setTimeout(() => {
        queue.timers.delete(timer);
        queue.ready.push({ ...message, retries: attempt });
        this.pump(queue);
      }, delay);
      timer.unref();
      queue.timers.add(timer);
      queue.observe(queue.name, 'retried');
    }
  }
}

function withoutUndefined(opts: SubscribeOptions = {}): SubscribeOptions {
  return Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined));
}

/** The EventBus of one app on the process-wide in-process broker. */
export class InProcessEventBus extends EventBus {
  private readonly consumers = new Set<string>();
  private closed = false;

  /**
   * `defaults`: prefetch and retries of a subscription that gives none (the app's EVENTS_* settings);
   * `topology`: the durable consumers per event type whose queues a publish declares (as on RabbitMQ).
   */
  constructor(
    private readonly source: string,
    readonly broker: InProcessBroker = InProcessBroker.shared(),
    private readonly defaults: SubscribeOptions = {},
    private readonly topology: { consumerQueues?: Readonly<Record<string, readonly string[]>>; queuePrefix?: string } = {},
  ) {
    super();
  }

  async publish<T>(event: EventContract<T>, data: T, opts?: PublishOptions): Promise<void> {
    await this.publishEnvelope(createEnvelope(event, data, this.source, withContextCorrelation(opts)));
  }

  async publishEnvelope(envelope: EventEnvelope<unknown>): Promise<void> {
    if (this.closed) throw new BrokerUnavailableError('The in-process event bus of this app is closed');
    if (this.topology.consumerQueues) {
      const queues = consumerQueuesOf(envelope.type, this.topology.consumerQueues, this.topology.queuePrefix);
      if (queues.length > 0) this.broker.declare(queues, envelope.type);
    }
    this.broker.publish(envelope);
  }

  async subscribe(
    consumer: string,
    events: EventContract<any>[],
    handler: EventHandler,
    opts?: SubscribeOptions,
  ): Promise<void> {
    validateConsumerName(consumer);
    if (events.length === 0) throw new Error(`subscribe(${consumer}) needs at least one event`);
    if (this.closed) throw new Error('The in-process event bus of this app is closed');
    this.consumers.add(consumer);
    this.broker.bind(
      consumer,
      events.map((e) => e.type),
      handler,
      { ...this.defaults, ...withoutUndefined(opts) },
      (name, outcome) => this.delivered(name, outcome),
    );
  }

  override consumerNames(): string[] {
    return [...this.consumers];
  }

  override async deadLetterDepths(): Promise<Record<string, number>> {
    return Object.fromEntries([...this.consumers].map((c) => [c, this.broker.deadLetters(c).length]));
  }

  async check(): Promise<void> {
    // Always reachable: the broker lives in this process.
  }

  async start(): Promise<void> {
    // Nothing to connect to.
  }

  async close(): Promise<void> {
    this.closed = true;
    const consumers = [...this.consumers];
    this.consumers.clear();
    await this.broker.detach(consumers);
  }
}
