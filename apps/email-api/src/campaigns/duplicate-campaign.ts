import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { DomainsService } from '../domains/domains.service';
import { SegmentsService } from '../segments/segments.service';
import { toCampaign, type Campaign, type CampaignFields } from './campaign';
import { CampaignsRepository } from './campaigns.repository';
import { CampaignsService } from './campaigns.service';

/**
 * POST /campaigns/:id/duplicate: a new DRAFT with the same content (its A/B test too, not its results), while the sender's domain is
 * still verified; a segment deleted since then leaves the copy's audience ALL.
 */
@Injectable()
export class DuplicateCampaign {
  constructor(
    private readonly transactions: Transactions,
    private readonly campaigns: CampaignsService,
    private readonly domains: DomainsService,
    private readonly segments: SegmentsService,
    private readonly rows: CampaignsRepository,
  ) {}

  execute(projectId: string, id: string): Promise<Campaign> {
    return this.transactions.transaction(async () => {
      const row = await this.campaigns.row(projectId, id);
      const domain = await this.domains.requireVerifiedSender(projectId, row.from_email);
      const fields: CampaignFields = {
        name: `${row.name} (copy)`,
        subject: row.subject,
        body: row.body,
        from: row.from_email,
        templateId: row.template_id,
        audienceType: row.audience_type,
        segmentId: row.segment_id,
        audienceCondition: row.audience_condition,
        abTest: row.ab_test,
      };
      if (fields.segmentId && !(await this.segments.existsLocked(projectId, fields.segmentId))) fields.segmentId = null;
      if (fields.audienceType === 'SEGMENT' && !fields.segmentId) fields.audienceType = 'ALL';
      return toCampaign(await this.rows.insert(projectId, domain.id, fields));
    });
  }
}
