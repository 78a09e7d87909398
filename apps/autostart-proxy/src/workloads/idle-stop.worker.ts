import { Injectable, Logger } from '@nestjs/common';
import { PollingWorker } from '@platform/database';
import { CatalogService } from '../catalog/catalog.service';
import { AutostartProxyConfig } from '../config';
import { ActivityService } from './activity.service';
import { Clock } from './clock';
import { WorkloadsRepository } from './workloads.repository';
import { WorkloadsService } from './workloads.service';

const PRUNE_EVERY_MS = 3_600_000;

/**
 * Stops the services idle past their timeout, every AUTOSTART_IDLE_CHECK_MS. Each replica first
 * writes its own activity, then claims the idle services with one conditional UPDATE: a service is
 * stopped by one replica, not all. Services found running at start and never used are stopped too
 * (their row starts "active since the proxy first saw them").
 */
@Injectable()
export class IdleStopWorker extends PollingWorker {
  protected readonly logger = new Logger('IdleStop');
  private lastPrune = 0;

  constructor(
    private readonly catalog: CatalogService,
    private readonly repo: WorkloadsRepository,
    private readonly workloads: WorkloadsService,
    private readonly activity: ActivityService,
    private readonly clock: Clock,
    private readonly config: AutostartProxyConfig,
  ) {
    super(config.AUTOSTART_IDLE_CHECK_MS);
  }

  protected async tick(): Promise<number> {
    await this.activity.flush();
    const { services, byName } = this.catalog.catalog;
    const now = new Date(this.clock.now());
    const claimed = await this.repo.claimIdle(now, new Map(services.map((s) => [s.name, s.idleTimeout])));
    let stopped = 0;
    for (const name of claimed) {
      const service = byName.get(name);
      if (!service) continue;
      try {
        await this.workloads.stop(service);
        await this.repo.stopped(name, new Date(this.clock.now()));
        this.logger.log(`${name} stopped after ${service.idleTimeout} s without requests`);
        stopped++;
      } catch (err) {
        this.logger.warn(`${name} could not be stopped: ${(err as Error).message}; trying again after another idle period`);
        await this.repo.stopFailed(name, new Date(this.clock.now()), (err as Error).message);
      }
    }
    if (now.getTime() - this.lastPrune > PRUNE_EVERY_MS) {
      this.lastPrune = now.getTime();
      await this.repo.pruneHistory(new Date(now.getTime() - this.config.AUTOSTART_HISTORY_DAYS * 86_400_000));
    }
    return stopped;
  }
}
