import { Injectable, type OnModuleInit } from '@nestjs/common';
import { References } from '../usage/references.service';
import { conditionField, placeholderPattern } from '../usage/usage';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { EmailCampaignBatch, Outbox } from '@platform/messaging';
import { engagementRates, MailEventsService } from '../mail-events/mail-events.service';
import { abReport } from './ab-test';
import { toCampaign, type Campaign, type CampaignRow } from './campaign';
import { CampaignsRepository } from './campaigns.repository';

export const campaignNotFound = () => new ApiError(404, 'CAMPAIGN_NOT_FOUND', 'Campaign not found', { suggestion: 'List the project\'s campaigns with GET /campaigns.' });

export const notDraft = (status: string, what: string) =>
  new ApiError(409, 'CAMPAIGN_NOT_DRAFT', `Only a DRAFT campaign can be ${what}; this one is ${status}`, { suggestion: 'Duplicate the campaign (POST /campaigns/{id}/duplicate) to get a new DRAFT.' });

/** A campaign body as POST and PUT take it. */
export interface CampaignInput {
  name: string;
  subject?: string;
  body?: string;
  from?: string;
  templateId?: string;
  audienceType: 'ALL' | 'SEGMENT' | 'FILTERED';
  segmentId?: string;
  audienceCondition?: Record<string, unknown>;
  abTest?: { variants: Array<{ subject?: string; body?: string }>; testShare: number; metric: 'opens' | 'clicks'; waitMinutes: number };
}

/**
 * Campaigns of a project: reads, delete and the scheduler's moves. The flows that span other
 * features are use cases of their own: CreateCampaign, ReplaceCampaign, DuplicateCampaign,
 * LaunchCampaign (send or schedule), CancelCampaign, SendCampaignTest and FanOutCampaignBatch.
 */
@Injectable()
export class CampaignsService implements OnModuleInit {
  constructor(
    private readonly transactions: Transactions,
    private readonly campaigns: CampaignsRepository,
    private readonly outbox: Outbox,
    private readonly mailEvents: MailEventsService,
    private readonly references: References,
  ) {}

  /** Campaigns reference fields in placeholders and audience conditions, events in audience conditions. */
  onModuleInit(): void {
    this.references.register('campaigns', (projectId, ref) => this.campaigns.referencing(projectId, ref.kind === 'field' ? placeholderPattern(ref.name) : null, conditionField(ref)));
  }

  async list(projectId: string, page: number, pageSize: number, status?: CampaignRow['status']) {
    const { rows, total } = await this.campaigns.page(projectId, pageSize, (page - 1) * pageSize, status);
    return { data: rows.map(toCampaign), total, page, pageSize, totalPages: Math.ceil(total / pageSize) };
  }

  /** The campaign's row (`lock`: FOR UPDATE, inside a transaction); 404 CAMPAIGN_NOT_FOUND. */
  async row(projectId: string, id: string, lock = false): Promise<CampaignRow> {
    const row = await this.campaigns.findById(projectId, id, lock);
    if (!row) throw campaignNotFound();
    return row;
  }

  async get(projectId: string, id: string): Promise<Campaign> {
    return toCampaign(await this.row(projectId, id));
  }

  remove(projectId: string, id: string): Promise<void> {
    return this.transactions.transaction(async () => {
      const row = await this.row(projectId, id, true);
      if (row.status === 'SENDING') {
        throw new ApiError(409, 'CAMPAIGN_SENDING', 'The campaign is sending', { suggestion: 'Cancel it with POST /campaigns/{id}/cancel first, then delete it.' });
      }
      await this.campaigns.delete(id);
    });
  }

  /**
   * Counts of the mails, with opens and clicks from the mail events (totals, uniques, human
   * figures) and the rates; for an A/B test its figures by variant, the winner and the significance.
   */
  async stats(projectId: string, id: string) {
    const row = await this.row(projectId, id);
    const [counts, engagement, groups] = await Promise.all([this.campaigns.stats(id), this.mailEvents.engagement([id]), row.ab_test ? this.campaigns.abGroups(id) : []]);
    const e = engagement.get(id)!;
    const abTest = row.ab_test
      ? abReport(row.ab_test, { phase: row.ab_phase, audience: row.ab_audience, testSize: row.ab_test_size, dueAt: row.ab_due_at, winner: row.ab_winner, decision: row.ab_decision }, groups)
      : null;
    return { status: row.status, ...counts, opened: e.opens.humanUnique, clicked: e.clicks.humanUnique, ...e, ...engagementRates(e, counts.delivered), abTest };
  }

  /** Scheduler: a due SCHEDULED campaign starts sending; a stalled fan-out is enqueued again. */
  async kick(row: CampaignRow): Promise<void> {
    await this.transactions.transaction(async () => {
      const current = await this.campaigns.lockForFanout(row.id);
      if (!current) return;
      if (current.status === 'SCHEDULED') await this.campaigns.setStatus(row.id, 'SENDING', current.scheduled_for);
      else if (current.status !== 'SENDING' || current.fanout_done) return;
      else await this.campaigns.advance(row.id, null, 0, false);
      await this.outbox.enqueue(EmailCampaignBatch, { projectId: current.project_id, campaignId: row.id, batch: 1 });
    });
  }
}
