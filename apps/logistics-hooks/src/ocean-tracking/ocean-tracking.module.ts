import { Module } from '@nestjs/common';
import { ErrorReportsModule } from '../error-reports/error-reports.module';
import { OceanCacheRepository } from './ocean-cache.repository';
import { OceanCarriers } from './ocean-carriers';
import { OceanTrackingController } from './ocean-tracking.controller';
import { OceanTrackingService } from './ocean-tracking.service';

/** `POST /ocean-track`: carriers' DCSA Track & Trace APIs, normalized and cached. */
@Module({
  imports: [ErrorReportsModule],
  controllers: [OceanTrackingController],
  providers: [OceanTrackingService, OceanCacheRepository, OceanCarriers],
  exports: [OceanTrackingService],
})
export class OceanTrackingModule {}
