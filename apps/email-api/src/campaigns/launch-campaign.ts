import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { EmailCampaignBatch, Outbox } from '@platform/messaging';
import { BillingUsage } from '../billing/billing-usage.service';
import { DomainsService } from '../domains/domains.service';
import { SegmentsService } from '../segments/segments.service';
import { audienceOf, toCampaign, type Campaign } from './campaign';
import { CampaignsRepository } from './campaigns.repository';
import { CampaignsService, notDraft } from './campaigns.service';

/**
 * POST /campaigns/:id/send: a DRAFT whose sender is still verified and whose audience has a
 * subscribed contact (else 400 NO_RECIPIENTS) and fits in what is left of the month's campaigns
 * cap (else 429 BILLING_LIMIT_REACHED) becomes SCHEDULED for a future `scheduledFor`, or
 * SENDING now with the first fan-out message in the outbox of the same transaction.
 */
@Injectable()
export class LaunchCampaign {
  constructor(
    private readonly transactions: Transactions,
    private readonly campaigns: CampaignsService,
    private readonly domains: DomainsService,
    private readonly segments: SegmentsService,
    private readonly rows: CampaignsRepository,
    private readonly outbox: Outbox,
    private readonly billing: BillingUsage,
  ) {}

  async execute(projectId: string, id: string, scheduledFor?: Date): Promise<Campaign> {
    const result = await this.transactions.transaction(async () => {
      const row = await this.campaigns.row(projectId, id, true);
      if (row.status !== 'DRAFT') throw notDraft(row.status, 'sent');
      await this.domains.requireVerifiedSender(projectId, row.from_email);
      const recipients = await this.segments.countRecipients(projectId, audienceOf(row));
      if (recipients === 0) {
        throw new ApiError(400, 'NO_RECIPIENTS', 'The campaign\'s audience has no subscribed contact', { suggestion: 'Choose another audience, or add contacts to the segment first.' });
      }
      // A campaign larger than what is left of this month's campaigns cap is refused up front (429
      // BILLING_LIMIT_REACHED), not cut off half way; the fan-out takes the units as it writes.
      await this.billing.assertRoom(projectId, 'campaigns', recipients);
      if (scheduledFor && scheduledFor.getTime() > Date.now()) return this.rows.setStatus(id, 'SCHEDULED', scheduledFor);
      const started = await this.rows.setStatus(id, 'SENDING', null);
      await this.outbox.enqueue(EmailCampaignBatch, { projectId, campaignId: id, batch: 1 });
      return started;
    });
    return toCampaign(result);
  }
}
