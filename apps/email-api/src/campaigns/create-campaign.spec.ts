import { PROJECT, fakeCampaignRows, fakeTransactions } from '../../test/campaign-fakes';
import type { CampaignFields } from './campaign';
import type { CheckCampaignBody } from './check-campaign-body';
import { CreateCampaign } from './create-campaign';

const fields: CampaignFields = { name: 'Spring', subject: 'Hi', body: '<p>x</p>', from: 'news@brand.test', templateId: null, audienceType: 'ALL', segmentId: null, audienceCondition: null, abTest: null };

describe('CreateCampaign', () => {
  it('checks the body and inserts a DRAFT with the sender\'s domain, in one transaction', async () => {
    const { transactions, state } = fakeTransactions();
    const { rows, calls } = fakeCampaignRows();
    const checkedIn: boolean[] = [];
    const checkBody = { execute: async () => (checkedIn.push(state.open > 0), { fields, domainId: 'dom-1' }) } as unknown as CheckCampaignBody;
    const created = await new CreateCampaign(transactions, checkBody, rows).execute(PROJECT, { name: 'Spring', audienceType: 'ALL' });
    expect(created).toMatchObject({ id: 'new-id', name: 'Spring', from: 'news@brand.test', status: 'DRAFT', audienceType: 'ALL' });
    expect(calls).toEqual([['insert', PROJECT, 'dom-1', fields]]);
    expect(checkedIn).toEqual([true]);
    expect(state.opened).toBe(1);
  });

  it('inserts nothing when the body is refused', async () => {
    const { transactions } = fakeTransactions();
    const { rows, calls } = fakeCampaignRows();
    const checkBody = { execute: async () => Promise.reject(new Error('refused')) } as unknown as CheckCampaignBody;
    await expect(new CreateCampaign(transactions, checkBody, rows).execute(PROJECT, { name: 'x', audienceType: 'ALL' })).rejects.toThrow('refused');
    expect(calls).toEqual([]);
  });
});
