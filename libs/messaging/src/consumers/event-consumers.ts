import { Inject, Injectable, Logger, Optional, type OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper';
import { BaseConfig, SERVICE_MODE, type ServiceMode } from '@platform/platform';
import type { EventContract, EventEnvelope } from '../contracts/event-contract';
import { EventBus, type EventHandler } from '../event-bus';
import { Inbox } from '../outbox/inbox';
import { EVENT_CONSUMER, ON_EVENT, type EventConsumerMetadata, type OnEventMetadata } from './event-consumer.decorators';

/** One declared consumer as found in the app: its queue, settings and a handler per event type. */
export interface DeclaredConsumer {
  /** The name of `@EventConsumer` (the inbox's consumer name). */
  name: string;
  /** The queue: EVENTS_QUEUE_PREFIX + name. */
  queue: string;
  prefetch: number;
  maxRetries: number;
  events: EventContract<unknown>[];
  handler: EventHandler;
}

interface Route {
  where: string;
  inbox: boolean;
  run: (event: EventEnvelope<unknown>) => Promise<unknown>;
}

/**
 * Subscribes every `@EventConsumer` provider of the app when it starts serving (not in `node main.js
 * migrate` or another command): one subscription per
 * consumer name, dispatching by event type to its `@OnEvent` methods, each through the inbox unless
 * it opted out, with prefetch and retries from the consumer's options or the EVENTS_* settings.
 */
@Injectable()
export class EventConsumers implements OnApplicationBootstrap {
  private readonly logger = new Logger('EventConsumers');
  private declared: DeclaredConsumer[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly bus: EventBus,
    private readonly config: BaseConfig,
    @Optional() private readonly inbox?: Inbox,
    @Optional() @Inject(SERVICE_MODE) private readonly mode?: ServiceMode,
  ) {}

  /** The consumers found at start (diagnostics, tests). */
  get consumers(): readonly DeclaredConsumer[] {
    return this.declared;
  }

  /** Declared consumers are checked in every mode, but consume only in a serving app (never during `migrate`). */
  async onApplicationBootstrap(): Promise<void> {
    this.declared = this.discover();
    if (this.mode === 'command') return;
    for (const c of this.declared) {
      await this.bus.subscribe(c.queue, c.events, c.handler, { prefetch: c.prefetch, maxRetries: c.maxRetries });
      this.logger.debug(`Consumer "${c.queue}" subscribed to ${c.events.map((e) => e.type).join(', ')}`);
    }
  }

  private discover(): DeclaredConsumer[] {
    const byName = new Map<string, { meta: EventConsumerMetadata; routes: Map<string, Route> }>();
    for (const wrapper of this.discovery.getProviders()) {
      const { instance, metatype } = wrapper;
      if (!instance || typeof instance !== 'object' || typeof metatype !== 'function') continue;
      const prototype = Object.getPrototypeOf(instance) as object | null;
      if (!prototype) continue;
      const meta = Reflect.getMetadata(EVENT_CONSUMER, metatype) as EventConsumerMetadata | undefined;
      const methods = this.scanner
        .getAllMethodNames(prototype)
        .map((key) => ({ key, on: Reflect.getMetadata(ON_EVENT, (prototype as Record<string, object>)[key]) as OnEventMetadata | undefined }))
        .filter((m): m is { key: string; on: OnEventMetadata } => m.on !== undefined);
      const where = metatype.name;
      if (!meta) {
        if (methods.length > 0) {
          throw new Error(`${where}.${methods[0].key} has @OnEvent but ${where} is not an @EventConsumer('<name>'): add the class decorator`);
        }
        continue;
      }
      this.assertStatic(wrapper, where);
      if (methods.length === 0) throw new Error(`@EventConsumer('${meta.name}') ${where} has no @OnEvent method`);
      const entry = byName.get(meta.name) ?? { meta, routes: new Map<string, Route>() };
      byName.set(meta.name, entry);
      for (const { key, on } of methods) {
        const method = (instance as Record<string, (event: EventEnvelope<unknown>) => Promise<unknown>>)[key];
        const route: Route = { where: `${where}.${key}`, inbox: on.inbox ?? meta.inbox ?? true, run: (event) => method.call(instance, event) };
        for (const event of on.events) {
          const taken = entry.routes.get(event.type);
          if (taken) throw new Error(`Consumer "${meta.name}" handles ${event.type} twice (${taken.where} and ${route.where}): keep one handler per event`);
          entry.routes.set(event.type, route);
        }
      }
    }
    return [...byName.values()].map(({ meta, routes }) => this.declare(meta, routes));
  }

  private declare(meta: EventConsumerMetadata, routes: Map<string, Route>): DeclaredConsumer {
    const inbox = this.inbox;
    const needsInbox = [...routes.values()].find((r) => r.inbox);
    if (needsInbox && !inbox) {
      throw new Error(
        `${needsInbox.where} handles each event once through the inbox, which needs MessagingModule.forRoot({ outbox: true }) ` +
          `(and createOutboxTables() in a migration); or declare @EventConsumer('${meta.name}', { inbox: false }) if it is idempotent by itself`,
      );
    }
    const handler: EventHandler = async (event) => {
      const route = routes.get(event.type);
      if (!route) return;
      if (route.inbox && inbox) await inbox.once(meta.name, event.id, () => route.run(event));
      else await route.run(event);
    };
    return {
      name: meta.name,
      queue: `${this.config.EVENTS_QUEUE_PREFIX ?? ''}${meta.name}`,
      prefetch: meta.prefetch ?? this.config.EVENTS_PREFETCH,
      maxRetries: meta.maxRetries ?? this.config.EVENTS_MAX_RETRIES,
      events: [...routes.keys()].map((type) => ({ type })),
      handler,
    };
  }

  private assertStatic(wrapper: InstanceWrapper, where: string): void {
    if (!wrapper.isDependencyTreeStatic()) {
      throw new Error(`Event consumer ${where} must be a singleton provider (not request- or transient-scoped)`);
    }
  }
}
