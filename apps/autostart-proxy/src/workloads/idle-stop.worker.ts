import { Injectable, Logger } from '@nestjs/common';
import { PollingWorker } from '@platform/database';
import { CatalogService } from '../catalog/catalog.service';
import { AutostartProxyConfig } from '../config';
import { ActivityService } from './activity.service';
import { Clock } from './clock';
import { WorkloadsRepository } from './workloads.repository';
import { WorkloadsService } from './workloads.service';

const PRUNE_EVERY_MS = 3_600_000;
/** Docker's own grace period when a service sets no stopTimeout. */
const DEFAULT_STOP_TIMEOUT = 10;

/**
 * Stops the services idle past their timeout, every AUTOSTART_IDLE_CHECK_MS. Each replica first
 * writes its own activity, then claims the idle services with one conditional UPDATE: a service is
 * stopped by one replica, not all. Services found running at start and never used are stopped too
 * (their row starts "active since the proxy first saw them"). A stop whose replica died before it
 * finished is taken over once its lease (stopTimeout + AUTOSTART_STOP_LEASE_MS) has run out.
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
    const leaseMs = this.config.AUTOSTART_STOP_LEASE_MS;
    const claimed = await this.repo.claimIdle(
      now,
      services.map((s) => ({ name: s.name, idle: s.idleTimeout, lease: (s.stopTimeout ?? DEFAULT_STOP_TIMEOUT) + leaseMs / 1000 })),
    );
    let stopped = 0;
    for (const { name, takenOver } of claimed) {
      const service = byName.get(name);
      if (!service) continue;
      try {
        if (takenOver) {
          // The replica that claimed it was killed mid-stop: stop only what the engine still runs.
          const acted = await this.workloads.stopUnlessStopped(service);
          this.logger.warn(`${name}: a stop claimed by a replica that did not finish it was taken over (${acted ? 'stopped now' : 'it had stopped'})`);
        } else {
          await this.workloads.stop(service);
          this.logger.log(`${name} stopped after ${service.idleTimeout} s without requests`);
        }
        await this.repo.stopped(name, new Date(this.clock.now()));
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
