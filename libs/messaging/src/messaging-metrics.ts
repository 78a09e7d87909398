import { Injectable, Optional, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { MetricsService } from '@platform/platform';
import { Counter, Gauge } from 'prom-client';
import { EventBus, type DeliveryOutcome } from './event-bus';

/** How long a scrape waits for the broker's DLQ depths before answering without them. */
export const DLQ_DEPTH_TIMEOUT_MS = 1000;

/**
 * The messaging metrics of one app, in its `/metrics` registry:
 * - `events_consumed_total{consumer, outcome}`: settled deliveries of the app's consumers, `outcome`
 *   `handled`, `retried` (the handler failed, the message waits in `<consumer>.retry`) or
 *   `dead_lettered` (retries used up, or not an envelope: moved to `<consumer>.dlq`);
 * - `events_dead_lettered_total{consumer}`: messages this app moved to a DLQ;
 * - `events_dlq_messages{consumer}`: messages in `<consumer>.dlq` now (read from the broker on each
 *   scrape, at most `DLQ_DEPTH_TIMEOUT_MS`; left out while the broker does not answer).
 * Every subscribed consumer is listed with 0 until something happens to it.
 */
@Injectable()
export class MessagingMetrics implements OnModuleInit, OnModuleDestroy {
  private stop: (() => void) | null = null;

  constructor(
    private readonly bus: EventBus,
    @Optional() private readonly metrics?: MetricsService,
  ) {}

  onModuleInit(): void {
    const registry = this.metrics?.registry;
    if (!registry || registry.getSingleMetric('events_consumed_total')) return;
    const bus = this.bus;
    const consumed = new Counter({
      name: 'events_consumed_total',
      help: 'Settled deliveries of this app\'s event consumers, by consumer and outcome (handled, retried, dead_lettered)',
      labelNames: ['consumer', 'outcome'],
      registers: [registry],
      collect() {
        for (const consumer of bus.consumerNames()) {
          for (const outcome of ['handled', 'retried', 'dead_lettered'] as const) consumed.inc({ consumer, outcome }, 0);
        }
      },
    });
    const deadLettered = new Counter({
      name: 'events_dead_lettered_total',
      help: 'Messages this app moved to a consumer\'s dead-letter queue (<consumer>.dlq), by consumer',
      labelNames: ['consumer'],
      registers: [registry],
      collect() {
        for (const consumer of bus.consumerNames()) deadLettered.inc({ consumer }, 0);
      },
    });
    const depth = new Gauge({
      name: 'events_dlq_messages',
      help: 'Messages waiting in each consumer\'s dead-letter queue (<consumer>.dlq) now',
      labelNames: ['consumer'],
      registers: [registry],
      async collect() {
        depth.reset();
        let timer: NodeJS.Timeout | undefined;
        const depths = await Promise.race([
          bus.deadLetterDepths().catch(() => ({})),
          new Promise<Record<string, number>>((resolve) => {
            timer = setTimeout(() => resolve({}), DLQ_DEPTH_TIMEOUT_MS);
          }),
        ]);
        clearTimeout(timer);
        for (const [consumer, n] of Object.entries(depths)) depth.set({ consumer }, n);
      },
    });
    this.stop = bus.onDelivery((consumer: string, outcome: DeliveryOutcome) => {
      consumed.inc({ consumer, outcome });
      if (outcome === 'dead_lettered') deadLettered.inc({ consumer });
    });
  }

  onModuleDestroy(): void {
    this.stop?.();
    this.stop = null;
  }
}
