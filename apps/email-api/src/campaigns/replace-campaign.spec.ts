import { CAMPAIGN, PROJECT, campaignRow, fakeCampaignRows, fakeCampaigns, fakeTransactions } from '../../test/campaign-fakes';
import type { CampaignFields } from './campaign';
import type { CheckCampaignBody } from './check-campaign-body';
import { ReplaceCampaign } from './replace-campaign';

const fields: CampaignFields = { name: 'New', subject: 'S', body: 'B', from: 'a@brand.test', templateId: null, audienceType: 'ALL', segmentId: null, audienceCondition: null, abTest: null };

function setup(status = campaignRow().status) {
  const { transactions, state } = fakeTransactions();
  const row = campaignRow({ status });
  const { campaigns, reads } = fakeCampaigns(row, () => state.open > 0);
  const { rows, calls } = fakeCampaignRows(row);
  const checkBody = { execute: async () => ({ fields, domainId: 'dom-2' }) } as unknown as CheckCampaignBody;
  return { replace: new ReplaceCampaign(transactions, campaigns, checkBody, rows), reads, calls };
}

describe('ReplaceCampaign', () => {
  it('replaces every field of a DRAFT read FOR UPDATE in the transaction', async () => {
    const { replace, reads, calls } = setup('DRAFT');
    await expect(replace.execute(PROJECT, CAMPAIGN, { name: 'New', audienceType: 'ALL' })).resolves.toMatchObject({ id: CAMPAIGN, name: 'New', subject: 'S' });
    expect(reads).toEqual([{ id: CAMPAIGN, lock: true, inTransaction: true }]);
    expect(calls).toEqual([['replace', CAMPAIGN, 'dom-2', fields]]);
  });

  it.each(['SCHEDULED', 'SENDING', 'SENT', 'CANCELLED'] as const)('refuses a %s campaign with 409 CAMPAIGN_NOT_DRAFT', async (status) => {
    const { replace, calls } = setup(status);
    const err = await replace.execute(PROJECT, CAMPAIGN, { name: 'New', audienceType: 'ALL' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CAMPAIGN_NOT_DRAFT', message: `Only a DRAFT campaign can be replaced; this one is ${status}` });
    expect((err as { getStatus(): number }).getStatus()).toBe(409);
    expect(calls).toEqual([]);
  });

  it('answers 404 CAMPAIGN_NOT_FOUND for another id', async () => {
    const { replace } = setup();
    await expect(replace.execute(PROJECT, '00000000-0000-0000-0000-000000000999', { name: 'x', audienceType: 'ALL' })).rejects.toMatchObject({ code: 'CAMPAIGN_NOT_FOUND' });
  });
});
