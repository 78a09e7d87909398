import { Module, type OnApplicationBootstrap } from '@nestjs/common';
import { CatalogService } from '../catalog/catalog.service';
import { ThemesService } from '../waiting/themes.service';
import { ActivityService } from './activity.service';
import { DiscoveryService } from './discovery.service';
import { EngineEventsService } from './engine-events.service';
import { Clock } from './clock';
import { IdleStopWorker } from './idle-stop.worker';
import { WorkloadsRepository } from './workloads.repository';
import { WorkloadsService } from './workloads.service';

@Module({
  providers: [ThemesService, CatalogService, Clock, WorkloadsRepository, WorkloadsService, ActivityService, IdleStopWorker, EngineEventsService, DiscoveryService],
  exports: [ThemesService, CatalogService, Clock, WorkloadsService, ActivityService, IdleStopWorker, EngineEventsService, DiscoveryService],
})
export class WorkloadsModule implements OnApplicationBootstrap {
  constructor(
    private readonly catalog: CatalogService,
    private readonly workloads: WorkloadsService,
    private readonly activity: ActivityService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // Every configured service gets its shared row (found running and never used: stopped after its idle timeout).
    await this.workloads.register(this.catalog.catalog.services);
    this.catalog.onChange((catalog) => void this.workloads.register(catalog.services).catch(() => undefined));
    this.activity.onFlushed(() => this.workloads.refresh(this.catalog.catalog.services.map((s) => s.name)));
  }
}
