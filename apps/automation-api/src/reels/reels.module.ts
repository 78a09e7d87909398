import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AutomationsModule } from '../automations/automations.module';
import { EventsModule } from '../events/events.module';
import { VideosModule } from '../videos/videos.module';
import { ReelPublisher } from './reel.publisher';
import { RecordPublishedReel } from './record-published-reel';
import { ReelsController } from './reels.controller';
import { ReelsRepository } from './reels.repository';
import { ReelsService } from './reels.service';

/** Scheduled reels and their publisher. The engine (its next_post scheduler) imports this module, never the other way round. */
@Module({
  imports: [AccountsModule, AutomationsModule, EventsModule, VideosModule],
  controllers: [ReelsController],
  providers: [ReelsRepository, ReelsService, RecordPublishedReel, ReelPublisher],
  exports: [ReelsService, ReelPublisher],
})
export class ReelsModule {}
