import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { ReelsModule } from '../reels/reels.module';
import { VideosModule } from '../videos/videos.module';
import { YouTubeService } from '../youtube/youtube.service';
import { HandTargetToReel } from './hand-target-to-reel';
import { PlannedPostsController } from './planned-posts.controller';
import { PlannedPostsRepository } from './planned-posts.repository';
import { PlannedPostsService } from './planned-posts.service';
import { PlannedPostsWorker } from './planned-posts.worker';

@Module({
  imports: [AccountsModule, ReelsModule, VideosModule],
  controllers: [PlannedPostsController],
  providers: [PlannedPostsRepository, PlannedPostsService, HandTargetToReel, PlannedPostsWorker, YouTubeService],
  exports: [PlannedPostsService, PlannedPostsWorker],
})
export class PlannedPostsModule {}
