import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { EngineModule } from '../engine/engine.module';
import { CommentPollerRepository } from './comment-poller.repository';
import { CommentPollerService } from './comment-poller.service';
import { CommentPollerWorker } from './comment-poller.worker';
import { RecoverComments } from './recover-comments';

/** No comment missed: recovers comments whose webhook never arrived (README "Comment poller"). */
@Module({
  imports: [AccountsModule, EngineModule],
  providers: [CommentPollerRepository, RecoverComments, CommentPollerWorker, CommentPollerService],
  exports: [CommentPollerService, CommentPollerWorker],
})
export class CommentPollerModule {}
