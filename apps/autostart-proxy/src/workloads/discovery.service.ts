import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { CatalogService } from '../catalog/catalog.service';
import { ENABLE_LABEL, servicesFromLabels, type LabelledWorkload } from '../catalog/discovery';
import { ThemesService } from '../waiting/themes.service';
import { AutostartProxyConfig } from '../config';
import { EngineEventsService } from './engine-events.service';
import { WorkloadsService } from './workloads.service';

/** Events coming in a burst (a compose project starting) are read as one listing after this pause. */
const DEBOUNCE_MS = 100;

/**
 * AUTOSTART_DISCOVERY: the workloads declare themselves (`autostart.*` container labels for
 * `docker`, Deployment / StatefulSet annotations for `kubernetes`). Listed when the proxy starts
 * (before it serves), every AUTOSTART_DISCOVERY_MS, and for Docker at once on a container's create,
 * start, die or destroy event: a new workload is picked up, a removed one dropped. The YAML file wins
 * on conflict. A failed listing keeps the previous services; a bad label is logged with its workload.
 */
@Injectable()
export class DiscoveryService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Discovery');
  private timer?: NodeJS.Timeout;
  private debounce?: NodeJS.Timeout;
  private running: Promise<void> | null = null;
  private lastProblems = '';

  constructor(
    private readonly catalog: CatalogService,
    private readonly workloads: WorkloadsService,
    private readonly events: EngineEventsService,
    private readonly themes: ThemesService,
    private readonly config: AutostartProxyConfig,
  ) {}

  private get kind(): 'docker' | 'kubernetes' | undefined {
    const d = this.config.AUTOSTART_DISCOVERY;
    return d === 'docker' || d === 'kubernetes' ? d : undefined;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.kind) return;
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.config.AUTOSTART_DISCOVERY_MS);
    this.timer.unref();
    if (this.kind === 'docker') {
      this.events.onEvent((event) => {
        if (!['create', 'start', 'die', 'destroy'].includes(event.action)) return;
        clearTimeout(this.debounce);
        this.debounce = setTimeout(() => void this.refresh(), DEBOUNCE_MS);
        this.debounce.unref();
      });
    }
  }

  /** Lists the labelled workloads now and updates the catalog (one listing at a time; errors are logged). */
  refresh(): Promise<void> {
    if (!this.running) this.running = this.list().finally(() => (this.running = null));
    return this.running;
  }

  private async list(): Promise<void> {
    let found: LabelledWorkload[];
    try {
      found =
        this.kind === 'docker'
          ? (await this.workloads.docker().list([ENABLE_LABEL])).map((c) => ({ provider: 'docker' as const, name: c.name, labels: c.labels }))
          : (await this.workloads.kubernetes().list(ENABLE_LABEL)).map((w) => ({ provider: 'kubernetes' as const, name: w.name, namespace: w.namespace, kind: w.kind, labels: w.annotations }));
    } catch (err) {
      this.logger.warn(`${this.kind} discovery failed (the previous services stay): ${(err as Error).message}`);
      return;
    }
    const { services, problems } = servicesFromLabels(found, this.catalog.defaultIdleTimeout, { themes: this.themes.names });
    const key = problems.join('\n');
    if (key && key !== this.lastProblems) this.logger.warn(`labelled workloads left out:\n  ${problems.join('\n  ')}`);
    this.lastProblems = key;
    if (this.catalog.setDiscovered(services)) {
      await this.workloads.register(services);
      this.logger.log(`${this.kind} discovery: ${services.map((s) => s.name).join(', ') || 'no services'}`);
    }
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
    clearTimeout(this.debounce);
  }
}
