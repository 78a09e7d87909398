import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { toCampaign, type Campaign } from './campaign';
import { CampaignsRepository } from './campaigns.repository';
import type { CampaignInput } from './campaigns.service';
import { CheckCampaignBody } from './check-campaign-body';

/** POST /campaigns: a new DRAFT, its body checked against templates, domains and segments in the same transaction. */
@Injectable()
export class CreateCampaign {
  constructor(
    private readonly transactions: Transactions,
    private readonly checkBody: CheckCampaignBody,
    private readonly campaigns: CampaignsRepository,
  ) {}

  execute(projectId: string, input: CampaignInput): Promise<Campaign> {
    return this.transactions.transaction(async () => {
      const { fields, domainId } = await this.checkBody.execute(projectId, input);
      return toCampaign(await this.campaigns.insert(projectId, domainId, fields));
    });
  }
}
