import {
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
import { BaseConfig, HealthRegistry, SERVICE_NAME } from '@platform/platform';
import { Database } from '@platform/database';
import { DataSource } from 'typeorm';
import { AmqpEventBus, type AmqpEventBusOptions } from './amqp/amqp-event-bus';
import { EventBus } from './event-bus';
import { InProcessEventBus } from './in-process/in-process-event-bus';
import { Outbox, OutboxRelay, type OutboxRelayOptions } from './outbox/outbox';

export interface MessagingModuleOptions {
  /** Provide `Outbox` and run its relay (needs DatabaseModule with `messagingEntities`). */
  outbox?: boolean;
  /** Relay tuning (tests use short intervals). */
  relay?: OutboxRelayOptions;
  /** AMQP adapter overrides, e.g. `exchange`/`dlx` names for tests. */
  amqp?: Partial<Omit<AmqpEventBusOptions, 'url' | 'source'>>;
}

export const MESSAGING_OPTIONS = 'PLATFORM_MESSAGING_OPTIONS';

/** Picks the adapter: RabbitMQ when AMQP_URL is set, otherwise the process-wide in-process broker. */
export function createEventBus(config: BaseConfig, source: string, opts: MessagingModuleOptions = {}): EventBus {
  if (config.AMQP_URL) return new AmqpEventBus({ ...opts.amqp, url: config.AMQP_URL, source });
  return new InProcessEventBus(source);
}

@Injectable()
class MessagingLifecycle implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('MessagingModule');

  constructor(
    private readonly bus: EventBus,
    private readonly health: HealthRegistry,
    @Optional() private readonly relay?: OutboxRelay,
  ) {}

  async onModuleInit(): Promise<void> {
    this.health.register('broker', () => this.bus.check());
    if (this.bus instanceof InProcessEventBus) {
      this.logger.log('AMQP_URL not set: events use the in-process bus (all apps of this process share it)');
    }
    // Never throws: an unreachable broker is retried in the background and reported by /readyz.
    await this.bus.start();
  }

  onApplicationBootstrap(): void {
    this.relay?.start();
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
 * (global) and, with `outbox`, `Outbox` and its relay.
 */
@Module({})
export class MessagingModule {
  static forRoot(opts: MessagingModuleOptions = {}): DynamicModule {
    const providers: Provider[] = [
      { provide: MESSAGING_OPTIONS, useValue: opts },
      {
        provide: EventBus,
        inject: [BaseConfig, SERVICE_NAME],
        useFactory: (config: BaseConfig, serviceName: string) => createEventBus(config, serviceName, opts),
      },
      MessagingLifecycle,
    ];
    const exports: DynamicModule['exports'] = [EventBus];
    if (opts.outbox) {
      providers.push(
        {
          provide: OutboxRelay,
          inject: [DataSource, EventBus],
          useFactory: (ds: DataSource, bus: EventBus) => new OutboxRelay(ds, bus, opts.relay),
        },
        {
          provide: Outbox,
          inject: [SERVICE_NAME, Database, OutboxRelay],
          useFactory: (serviceName: string, db: Database, relay: OutboxRelay) => new Outbox(serviceName, db, relay),
        },
      );
      exports.push(Outbox, OutboxRelay);
    }
    return { module: MessagingModule, global: true, providers, exports };
  }
}

