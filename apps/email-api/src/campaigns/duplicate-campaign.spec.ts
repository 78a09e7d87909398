import type { Condition } from '../segments/condition';
import { CAMPAIGN, PROJECT, campaignRow, fakeCampaignRows, fakeCampaigns, fakeDomains, fakeTransactions } from '../../test/campaign-fakes';
import type { CampaignRow } from './campaign';
import { DuplicateCampaign } from './duplicate-campaign';

const SEGMENT = '00000000-0000-0000-0000-0000000000ee';

function setup(row: CampaignRow, segmentExists = true) {
  const { transactions, state } = fakeTransactions();
  const { campaigns } = fakeCampaigns(row);
  const { domains, checked } = fakeDomains(['brand.test']);
  const { rows, calls } = fakeCampaignRows(row);
  const segments = { existsLocked: async () => segmentExists };
  return { duplicate: new DuplicateCampaign(transactions, campaigns, domains, segments as never, rows), calls, checked, state };
}

describe('DuplicateCampaign', () => {
  it('copies the A/B test\'s settings, not where it stood', async () => {
    const abTest = { variants: [{ subject: 'A', body: null }, { subject: 'B', body: null }], testShare: 20, metric: 'opens' as const, waitMinutes: 30 };
    const row = campaignRow({ status: 'SENT', ab_test: abTest, ab_phase: 'winner', ab_winner: 1, ab_test_size: 8 });
    const { duplicate, calls } = setup(row);
    const copy = await duplicate.execute(PROJECT, CAMPAIGN);
    expect(calls[0][3]).toMatchObject({ abTest });
    expect(copy.abTest).toMatchObject({ phase: null, winner: null, testSize: null, variants: [{ id: 'A', subject: 'A' }, { id: 'B', subject: 'B' }] });
  });

  it('inserts a DRAFT copy named "(copy)" with the same content and audience, in one transaction', async () => {
    const condition: Condition = { logic: 'AND', groups: [{ filters: [{ field: 'subscribed', operator: 'equals', value: true }] }] };
    const row = campaignRow({ status: 'SENT', template_id: 'tpl-1', audience_type: 'FILTERED', audience_condition: condition });
    const { duplicate, calls, checked, state } = setup(row);
    await expect(duplicate.execute(PROJECT, CAMPAIGN)).resolves.toMatchObject({ id: 'new-id', name: 'Spring (copy)', status: 'DRAFT', audienceType: 'FILTERED', audienceCondition: condition });
    expect(calls).toEqual([
      ['insert', PROJECT, 'dom-brand.test', { name: 'Spring (copy)', subject: row.subject, body: row.body, from: row.from_email, templateId: 'tpl-1', audienceType: 'FILTERED', segmentId: null, audienceCondition: condition, abTest: null }],
    ]);
    expect(checked).toEqual(['news@brand.test']);
    expect(state.opened).toBe(1);
  });

  it('keeps a segment that still exists', async () => {
    const { duplicate, calls } = setup(campaignRow({ audience_type: 'SEGMENT', segment_id: SEGMENT }), true);
    await duplicate.execute(PROJECT, CAMPAIGN);
    expect(calls[0][3]).toMatchObject({ audienceType: 'SEGMENT', segmentId: SEGMENT });
  });

  it('sends the copy to ALL when its segment was deleted', async () => {
    const { duplicate, calls } = setup(campaignRow({ audience_type: 'SEGMENT', segment_id: SEGMENT }), false);
    await duplicate.execute(PROJECT, CAMPAIGN);
    expect(calls[0][3]).toMatchObject({ audienceType: 'ALL', segmentId: null });
  });

  it('refuses when the sender\'s domain is no longer verified', async () => {
    const { duplicate, calls } = setup(campaignRow({ from_email: 'news@gone.test' }));
    await expect(duplicate.execute(PROJECT, CAMPAIGN)).rejects.toMatchObject({ code: 'domain_not_verified' });
    expect(calls).toEqual([]);
  });
});
