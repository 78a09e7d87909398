import {
  Inject,
  Injectable,
  Logger,
  Module,
  Optional,
  type DynamicModule,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
  type OnModuleInit,
  type Provider,
} from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { BaseConfig, HealthRegistry, SERVICE_MODE, SERVICE_NAME, type ServiceMode } from '@platform/platform';
import { Database } from '@platform/database';
import { DataSource } from 'typeorm';
import { AmqpEventBus } from './amqp/amqp-event-bus';
import { EventConsumers } from './consumers/event-consumers';
import { EVENT_CONSUMERS } from './contracts/consumers';
import { EventBus } from './event-bus';
import { InProcessEventBus } from './in-process/in-process-event-bus';
import { Inbox } from './outbox/inbox';
import { MessagingMetrics } from './messaging-metrics';
import { Outbox, OutboxRelay } from './outbox/outbox';

export interface MessagingModuleOptions {
  /**
   * Provide `Outbox` (and run its relay) and `Inbox`, which declared consumers use by default
   * (needs DatabaseModule and createOutboxTables() in a migration).
   */
  outbox?: boolean;
}

/**
 * The durable consumers whose queues a publish declares (`EVENT_CONSUMERS`), with EVENTS_QUEUE_PREFIX,
 * unless EVENTS_DECLARE_CONSUMERS=false. Only on the environment's own exchange or with a queue prefix: a test that publishes on a
 * throwaway exchange without a prefix must not create the real consumers' queues.
 */
function consumerTopology(config: BaseConfig): { consumerQueues?: typeof EVENT_CONSUMERS; queuePrefix?: string } {
  const prefix = config.EVENTS_QUEUE_PREFIX ?? '';
  if (config.EVENTS_DECLARE_CONSUMERS === false) return {};
  if (!prefix && config.EVENTS_EXCHANGE !== 'platform.events') return {};
  return { consumerQueues: EVENT_CONSUMERS, queuePrefix: prefix };
}

/**
 * Picks the adapter: RabbitMQ when AMQP_URL is set, otherwise the process-wide in-process broker.
 * Exchange names, prefetch, retries and reconnect backoff come from the EVENTS_* settings; a publish
 * declares the queues of the event's durable consumers (`EVENT_CONSUMERS`) first.
 */
export function createEventBus(config: BaseConfig, source: string): EventBus {
  const defaults = { prefetch: config.EVENTS_PREFETCH, maxRetries: config.EVENTS_MAX_RETRIES };
  const topology = consumerTopology(config);
  if (config.AMQP_URL) {
    return new AmqpEventBus({
      ...defaults,
      url: config.AMQP_URL,
      source,
      exchange: config.EVENTS_EXCHANGE,
      dlx: config.EVENTS_DLX,
      reconnectDelayMs: config.EVENTS_RECONNECT_DELAY_MS,
      maxReconnectDelayMs: config.EVENTS_MAX_RECONNECT_DELAY_MS,
      ...topology,
    });
  }
  return new InProcessEventBus(source, undefined, defaults, topology);
}

@Injectable()
class MessagingLifecycle implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('MessagingModule');

  constructor(
    private readonly bus: EventBus,
    private readonly health: HealthRegistry,
    @Optional() private readonly relay?: OutboxRelay,
    @Optional() @Inject(SERVICE_MODE) private readonly mode?: ServiceMode,
  ) {}

  async onModuleInit(): Promise<void> {
    this.health.register('broker', () => this.bus.check());
    if (this.bus instanceof InProcessEventBus) {
      this.logger.debug('AMQP_URL not set: events use the in-process bus (all apps of this process share it)');
    }
    // Never throws: an unreachable broker is retried in the background and reported by /readyz.
    await this.bus.start();
  }

  /**
   * The relay publishes only in a serving app: `migrate` (which may run before the outbox table
   * exists) and other commands leave enqueued events to the service. Commands can still publish
   * directly on the bus.
   */
  onApplicationBootstrap(): void {
    if (this.mode !== 'command') this.relay?.start();
  }

  /** Consumers stop taking messages, in-flight handlers finish, unacked messages go back to the queue. */
  async onModuleDestroy(): Promise<void> {
    await this.relay?.stop();
    await this.bus.close();
    this.health.unregister('broker');
  }
}

/**
 * `MessagingModule.forRoot({ outbox: true })` in the app's root module: provides `EventBus`
 * (global), subscribes the app's `@EventConsumer` providers at start and, with `outbox`, provides
 * `Outbox`, its relay and `Inbox`. Settings: AMQP_URL and EVENTS_* (BaseConfig).
 */
@Module({})
export class MessagingModule {
  static forRoot(opts: MessagingModuleOptions = {}): DynamicModule {
    const providers: Provider[] = [
      {
        provide: EventBus,
        inject: [BaseConfig, SERVICE_NAME],
        useFactory: (config: BaseConfig, serviceName: string) => createEventBus(config, serviceName),
      },
      MessagingLifecycle,
      EventConsumers,
      MessagingMetrics,
    ];
    const exports: DynamicModule['exports'] = [EventBus];
    if (opts.outbox) {
      providers.push(
        {
          provide: OutboxRelay,
          inject: [DataSource, EventBus, BaseConfig],
          useFactory: (ds: DataSource, bus: EventBus, config: BaseConfig) =>
            new OutboxRelay(ds, bus, { pollIntervalMs: config.EVENTS_OUTBOX_POLL_MS }),
        },
        {
          provide: Outbox,
          inject: [SERVICE_NAME, Database, OutboxRelay],
          useFactory: (serviceName: string, db: Database, relay: OutboxRelay) => new Outbox(serviceName, db, relay),
        },
        Inbox,
      );
      exports.push(Outbox, OutboxRelay, Inbox);
    }
    return { module: MessagingModule, global: true, imports: [DiscoveryModule], providers, exports };
  }
}
