import { Injectable, Logger } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { MailQueue } from '../emails/mail-queue.service';
import { toCampaign, type Campaign } from './campaign';
import { CampaignsRepository } from './campaigns.repository';
import { CampaignsService } from './campaigns.service';

/** POST /campaigns/:id/cancel: SCHEDULED or SENDING → CANCELLED; its mails not yet handed to SMTP become CANCELLED (not FAILED: they are no bounce). */
@Injectable()
export class CancelCampaign {
  private readonly logger = new Logger('CancelCampaign');

  constructor(
    private readonly transactions: Transactions,
    private readonly campaigns: CampaignsService,
    private readonly rows: CampaignsRepository,
    private readonly mail: MailQueue,
  ) {}

  execute(projectId: string, id: string): Promise<Campaign> {
    return this.transactions.transaction(async () => {
      const row = await this.campaigns.row(projectId, id, true);
      if (row.status !== 'SCHEDULED' && row.status !== 'SENDING') {
        throw new ApiError(409, 'CAMPAIGN_NOT_CANCELLABLE', `A ${row.status} campaign cannot be cancelled (only SCHEDULED or SENDING ones)`, { suggestion: 'Check the campaign\'s status with GET /campaigns/{id}.' });
      }
      const cancelled = await this.rows.setStatus(id, 'CANCELLED', row.scheduled_for);
      const cancelledMails = await this.mail.cancelQueuedOfCampaign(id, 'The campaign was cancelled before this mail was handed to SMTP');
      this.logger.log(`campaign ${id} cancelled; ${cancelledMails} queued mails will not be sent`);
      return toCampaign(cancelled);
    });
  }
}
