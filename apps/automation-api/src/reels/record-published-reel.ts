import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { AutomationsService } from '../automations/automations.service';
import { Clock } from '../common/clock';
import { EventsService } from '../events/events.service';
import type { ReelRow } from './reels.repository';
import { ReelsRepository } from './reels.repository';

/**
 * A reel went online: in one transaction the reel becomes `published` (only from `publishing`, so a
 * concurrent cancel or a second replica changes nothing) and, when it is bound to a next_post
 * automation still waiting, that automation is attached to the reel's media id with a
 * `reel_attached` Event. Answers whether the automation was attached.
 */
@Injectable()
export class RecordPublishedReel {
  constructor(
    private readonly transactions: Transactions,
    private readonly reels: ReelsRepository,
    private readonly automations: AutomationsService,
    private readonly events: EventsService,
    private readonly clock: Clock,
  ) {}

  async execute(reel: ReelRow, mediaId: string, permalink: string | null, nextAttemptAt: Date): Promise<boolean> {
    const now = this.clock.now();
    let attached = false;
    await this.transactions.transaction(async () => {
      const ok = await this.reels.step(reel.id, 'publishing', 'published', { media_id: mediaId, permalink, published_at: now, container_status: 'PUBLISHED', error: null }, nextAttemptAt);
      if (!ok || reel.automation_id === null) return;
      attached = await this.automations.attachReel(reel.automation_id, mediaId, now);
      if (attached) {
        await this.events.record(reel.account_id, { automation_id: reel.automation_id, username: null, kind: 'reel_attached', text: permalink, ref: mediaId });
      }
    });
    return attached;
  }
}
