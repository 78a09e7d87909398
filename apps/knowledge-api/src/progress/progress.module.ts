import { Module } from '@nestjs/common';
import { RealtimeModule } from '../realtime/realtime.module';
import { ProgressController } from './progress.controller';
import { CrawlGateway, RootGateway } from './progress.gateways';
import { ProgressSnapshots } from './progress-snapshots.service';
import { ProgressRepository } from './progress.repository';
import { ProgressService } from './progress.service';

@Module({
  imports: [RealtimeModule],
  controllers: [ProgressController],
  providers: [ProgressRepository, ProgressService, ProgressSnapshots, CrawlGateway, RootGateway],
  exports: [ProgressService],
})
export class ProgressModule {}
