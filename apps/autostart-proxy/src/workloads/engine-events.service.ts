import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { ContainerEvent } from '@platform/containers';
import { CatalogService } from '../catalog/catalog.service';
import { AutostartProxyConfig } from '../config';
import { effectOf, servicesOfEvent } from './engine-events';
import { WorkloadsService } from './workloads.service';

/**
 * Follows the Docker engine's container events (each replica its own stream; the updates are
 * idempotent), so the shared state follows what others do at once: a managed container stopped or
 * removed from outside ends its session and is forgotten (the next request starts it again); one
 * started from outside is adopted, active from then on, and stopped after its idle timeout. Starts
 * and stops the proxy makes itself are told apart by the shared status (`starting`, `stopping`).
 * Runs when a service uses Docker or AUTOSTART_DISCOVERY=docker; a broken stream is reopened.
 */
@Injectable()
export class EngineEventsService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('DockerEvents');
  private stop?: () => void;
  private readonly listeners: ((event: ContainerEvent) => void)[] = [];
  private pending: Promise<void> = Promise.resolve();

  constructor(
    private readonly catalog: CatalogService,
    private readonly workloads: WorkloadsService,
    private readonly config: AutostartProxyConfig,
  ) {}

  /** Also told of every event (discovery). */
  onEvent(listener: (event: ContainerEvent) => void): void {
    this.listeners.push(listener);
  }

  /** Resolves once the events received so far are applied (tests). */
  settled(): Promise<void> {
    return this.pending;
  }

  onApplicationBootstrap(): void {
    const wanted = this.config.AUTOSTART_DISCOVERY === 'docker' || this.catalog.catalog.services.some((s) => s.provider === 'docker');
    if (!wanted) return;
    let opened = 0;
    this.stop = this.workloads.docker().watch((event) => this.receive(event), {
      actions: ['create', 'start', 'die', 'stop', 'destroy', 'unpause'],
      onOpen: () => {
        if (opened++ > 0) this.logger.log('Docker events stream open again');
      },
      onError: (err) => this.logger.warn(`Docker events: ${err.message}; reopening`),
    });
  }

  private receive(event: ContainerEvent): void {
    for (const listener of this.listeners) listener(event);
    const effect = effectOf(event.action);
    if (effect === 'none') return;
    for (const service of servicesOfEvent(this.catalog.catalog.services, event)) {
      if (this.workloads.isStarting(service.name)) continue; // this replica's own start
      const apply = effect === 'stopped' ? () => this.workloads.stoppedOutside(service.name) : () => this.workloads.startedOutside(service.name);
      this.pending = this.pending
        .then(apply)
        .catch((err: Error) => this.logger.warn(`${service.name}: ${event.action} event not applied: ${err.message}`));
    }
  }

  onModuleDestroy(): void {
    this.stop?.();
  }
}
