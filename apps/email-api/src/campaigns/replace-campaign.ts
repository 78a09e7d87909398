import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { toCampaign, type Campaign } from './campaign';
import { CampaignsRepository } from './campaigns.repository';
import { CampaignsService, notDraft, type CampaignInput } from './campaigns.service';
import { CheckCampaignBody } from './check-campaign-body';

/** PUT /campaigns/:id: replaces every field of a DRAFT (409 CAMPAIGN_NOT_DRAFT otherwise), the body checked as on create. */
@Injectable()
export class ReplaceCampaign {
  constructor(
    private readonly transactions: Transactions,
    private readonly campaigns: CampaignsService,
    private readonly checkBody: CheckCampaignBody,
    private readonly rows: CampaignsRepository,
  ) {}

  execute(projectId: string, id: string, input: CampaignInput): Promise<Campaign> {
    return this.transactions.transaction(async () => {
      const row = await this.campaigns.row(projectId, id, true);
      if (row.status !== 'DRAFT') throw notDraft(row.status, 'replaced');
      const { fields, domainId } = await this.checkBody.execute(projectId, input);
      return toCampaign(await this.rows.replace(id, domainId, fields));
    });
  }
}
