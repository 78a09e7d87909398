import { Injectable, Logger } from '@nestjs/common';
import { PollingWorker } from '@platform/database';
import { EmailApiConfig } from '../config';
import { variantId } from './ab-test';
import { CampaignsRepository } from './campaigns.repository';
import { PickAbWinner } from './pick-ab-winner';

/**
 * Moves A/B tests on, from the database alone (no timer in memory, so a restart or another replica
 * carries on): a test whose mails all left starts its wait (`waiting`, the winner due `waitMinutes`
 * later); a test whose wait ran out is claimed (`claimDue`, one replica each) and its winner goes
 * to the rest (PickAbWinner).
 */
@Injectable()
export class AbTestWorker extends PollingWorker {
  protected readonly logger = new Logger('AbTestWorker');

  constructor(
    private readonly campaigns: CampaignsRepository,
    private readonly pick: PickAbWinner,
    config: EmailApiConfig,
  ) {
    super(config.WORKER_POLL_MS);
  }

  protected async tick(): Promise<number> {
    const waiting = await this.campaigns.startAbWaits();
    for (const c of waiting) this.logger.log(`campaign ${c.id}: A/B test mails sent, winner due at ${c.ab_due_at.toISOString()}`);
    const due = await this.campaigns.claimAbDue(20);
    for (const row of due) {
      await this.pick.waitOver(row.id).then(
        (picked) => picked && this.logger.log(`campaign ${row.id}: A/B winner ${variantId(picked.ab_winner!)} goes to the rest`),
        (err: unknown) => this.logger.warn(`campaign ${row.id}: A/B winner not picked: ${(err as Error).message}`),
      );
    }
    return waiting.length + due.length;
  }
}
