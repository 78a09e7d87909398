import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ReelPublisher } from '../reels/reel.publisher';
import { ReelsService } from '../reels/reels.service';
import type { PlannedPostRow, TargetRow } from './planned-posts.repository';
import { PlannedPostsRepository } from './planned-posts.repository';

/**
 * A planned post's Instagram target becomes a scheduled reel: the reel is created and the target
 * bound to it in one transaction (a crash leaves neither, and the target's lease brings it back),
 * then the reel publisher is woken. The target then follows its reel's end state.
 */
@Injectable()
export class HandTargetToReel {
  constructor(
    private readonly transactions: Transactions,
    private readonly posts: PlannedPostsRepository,
    private readonly reels: ReelsService,
    private readonly publisher: ReelPublisher,
  ) {}

  async execute(t: TargetRow, post: PlannedPostRow): Promise<void> {
    await this.transactions.transaction(async () => {
      const reel = await this.reels.schedule({ account_id: t.account_id, publish_at: t.publish_at, caption: post.caption, source: post.source, trial: false, share_to_feed: null, automation_id: null });
      await this.posts.handToReel(t.id, reel.id);
    });
    this.publisher.wake();
  }
}
