import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { ChannelsModule } from '../channels/channels.module';
import { AnalyticsController } from './analytics.controller';
import { AnalyticsRepository } from './analytics.repository';
import { AnalyticsService } from './analytics.service';

/** Reports (analytics:read) over the reporting events. */
@Module({
  imports: [ChannelsModule, AccountsModule],
  controllers: [AnalyticsController],
  providers: [AnalyticsRepository, AnalyticsService],
  exports: [AnalyticsService],
})
export class AnalyticsModule {}
