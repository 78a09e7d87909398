import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AutomationsModule } from '../automations/automations.module';
import { EngineModule } from '../engine/engine.module';
import { EventsModule } from '../events/events.module';
import { VideosModule } from '../videos/videos.module';
import { ReelPublisher } from './reel.publisher';
import { ReelsController } from './reels.controller';
import { ReelsRepository } from './reels.repository';
import { ReelsService } from './reels.service';

@Module({
  imports: [AccountsModule, AutomationsModule, EngineModule, EventsModule, VideosModule],
  controllers: [ReelsController],
  providers: [ReelsRepository, ReelsService, ReelPublisher],
  exports: [ReelsService, ReelsRepository, ReelPublisher],
})
export class ReelsModule {}
