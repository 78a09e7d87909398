import { Injectable, Logger } from '@nestjs/common';
import { PollingWorker } from '@platform/database';
import { EmailApiConfig } from '../config';
import { CampaignsRepository } from './campaigns.repository';
import { CampaignsService } from './campaigns.service';

/** A fan-out that made no progress for this long is enqueued again (its message was lost). */
const STALLED_SECONDS = 60;

/**
 * Moves campaigns on: SCHEDULED → SENDING at `scheduledFor` (claimed with `claimDue`, so one replica
 * starts each), stalled fan-outs re-enqueued, and SENDING → SENT once the fan-out is done and no mail
 * of the campaign is pending (also when its segment shrank meanwhile).
 */
@Injectable()
export class CampaignScheduler extends PollingWorker {
  protected readonly logger = new Logger('CampaignScheduler');

  constructor(
    private readonly campaigns: CampaignsRepository,
    private readonly service: CampaignsService,
    config: EmailApiConfig,
  ) {
    super(config.WORKER_POLL_MS);
  }

  protected async tick(): Promise<number> {
    const due = await this.campaigns.claimDue(20, STALLED_SECONDS);
    for (const row of due) {
      await this.service.kick(row).catch((err) => this.logger.warn(`campaign ${row.id}: ${(err as Error).message}`));
    }
    const finished = await this.campaigns.finishSent();
    for (const c of finished) this.logger.log(`campaign ${c.id} sent`);
    return due.length;
  }
}
