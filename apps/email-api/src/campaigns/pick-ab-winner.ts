import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { EmailCampaignBatch, Outbox } from '@platform/messaging';
import { decideWinner, variantIndex, variantProportions, VARIANT_IDS, type AbDecision } from './ab-test';
import { toCampaign, type Campaign, type CampaignRow } from './campaign';
import { CampaignsRepository } from './campaigns.repository';
import { CampaignsService } from './campaigns.service';

/**
 * The winner of an A/B test goes to the rest of the audience: picked by the test's metric (a tie
 * goes to the earlier variant) or named by the caller, recorded with how it was picked, and the
 * campaign switched to its `winner` phase with the fan-out's first message, in one transaction
 * (a process killed before the commit picks again; after it, the fan-out carries on).
 *
 * `early` answers POST /campaigns/:id/ab/winner; `waitOver` is the A/B worker's, for a campaign it
 * claimed when its wait ran out.
 */
@Injectable()
export class PickAbWinner {
  constructor(
    private readonly transactions: Transactions,
    private readonly campaigns: CampaignsService,
    private readonly rows: CampaignsRepository,
    private readonly outbox: Outbox,
  ) {}

  /** Ends the test now: the best by the metric, or `variant` whatever the figures. */
  async early(projectId: string, id: string, variant?: string): Promise<Campaign> {
    const row = await this.transactions.transaction(async () => {
      const current = await this.campaigns.row(projectId, id, true);
      const test = current.ab_test;
      if (!test) throw new ApiError(409, 'CAMPAIGN_NOT_AB_TEST', 'This campaign has no A/B test', { suggestion: 'Give a DRAFT campaign an `abTest` (PUT /campaigns/{id}) before sending it.' });
      if (current.status !== 'SENDING') {
        throw new ApiError(409, 'AB_TEST_NOT_RUNNING', `The campaign is ${current.status}: its A/B test is not running`, {
          suggestion: current.status === 'DRAFT' || current.status === 'SCHEDULED' ? 'Send the campaign first (POST /campaigns/{id}/send); the test starts with it.' : 'Check the campaign with GET /campaigns/{id}/stats.',
        });
      }
      if (current.ab_phase === 'winner') {
        throw new ApiError(409, 'AB_WINNER_PICKED', `The winner was picked already (variant ${VARIANT_IDS[current.ab_winner!]})`, { suggestion: 'See how it was picked in GET /campaigns/{id}/stats.' });
      }
      let forced: number | undefined;
      if (variant !== undefined) {
        forced = variantIndex(variant);
        if (forced < 0 || forced >= test.variants.length) {
          throw new ApiError(422, 'VALIDATION_ERROR', 'Validation failed', {
            errors: [{ field: 'variant', message: `this test has the variants ${VARIANT_IDS.slice(0, test.variants.length).join(', ')}`, code: 'invalid' }],
            suggestion: 'Name one of the test\'s variants, or leave `variant` out to pick the best by the metric.',
          });
        }
      }
      return this.pick(current, 'early', forced);
    });
    return toCampaign(row);
  }

  /** The wait of a campaign the worker claimed ran out (the claim compared the due time with the database's clock): picks by the metric, unless it moved on meanwhile (cancelled, picked early). Null then. */
  waitOver(campaignId: string): Promise<CampaignRow | null> {
    return this.transactions.transaction(async () => {
      const current = await this.rows.lockForFanout(campaignId);
      if (!current || current.status !== 'SENDING' || current.ab_phase !== 'waiting') return null;
      return this.pick(current, 'wait');
    });
  }

  private async pick(row: CampaignRow, trigger: AbDecision['trigger'], forced?: number): Promise<CampaignRow> {
    const test = row.ab_test!;
    const figures = variantProportions(await this.rows.abGroups(row.id), test.variants.length, test.metric);
    const { winner, decision } = decideWinner(test.metric, figures, trigger, new Date(), forced);
    const switched = await this.rows.startWinner(row.id, winner, decision);
    await this.outbox.enqueue(EmailCampaignBatch, { projectId: row.project_id, campaignId: row.id, batch: 1 });
    return switched;
  }
}
