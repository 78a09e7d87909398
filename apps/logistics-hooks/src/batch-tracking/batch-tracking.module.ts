import { Module, type DynamicModule } from '@nestjs/common';
import type { LogisticsHooksConfig } from '../config';
import { batchTrackingControllerAt } from './batch-tracking.controller';
import { BatchTrackingService } from './batch-tracking.service';
import { ReportMailer } from './report-mailer';

/** `POST /{prefix}-batch-track` (truck position feeds) and `POST /{prefix}-email-report`. */
@Module({})
export class BatchTrackingModule {
  static forRoot(config: LogisticsHooksConfig): DynamicModule {
    return { module: BatchTrackingModule, controllers: [batchTrackingControllerAt(config.LOGISTICS_PREFIX)], providers: [BatchTrackingService, ReportMailer] };
  }
}
