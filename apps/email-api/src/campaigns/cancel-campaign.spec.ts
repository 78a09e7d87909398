import { CAMPAIGN, PROJECT, campaignRow, fakeCampaignRows, fakeCampaigns, fakeTransactions } from '../../test/campaign-fakes';
import type { CampaignStatus } from './campaign';
import { CancelCampaign } from './cancel-campaign';

function setup(status: CampaignStatus, scheduledFor: Date | null = null) {
  const { transactions, state } = fakeTransactions();
  const row = campaignRow({ status, scheduled_for: scheduledFor });
  const { campaigns, reads } = fakeCampaigns(row, () => state.open > 0);
  const { rows, calls } = fakeCampaignRows(row);
  const failed: Array<{ campaignId: string; reason: string; inTransaction: boolean }> = [];
  const mail = { cancelQueuedOfCampaign: async (campaignId: string, reason: string) => (failed.push({ campaignId, reason, inTransaction: state.open > 0 }), 2) };
  return { cancel: new CancelCampaign(transactions, campaigns, rows, mail as never), reads, calls, failed };
}

describe('CancelCampaign', () => {
  it.each(['SCHEDULED', 'SENDING'] as const)('cancels a %s campaign and fails its mails not yet handed to SMTP, in one transaction', async (status) => {
    const at = new Date('2030-01-01T00:00:00Z');
    const { cancel, reads, calls, failed } = setup(status, at);
    await expect(cancel.execute(PROJECT, CAMPAIGN)).resolves.toMatchObject({ id: CAMPAIGN, status: 'CANCELLED', scheduledFor: at });
    expect(reads).toEqual([{ id: CAMPAIGN, lock: true, inTransaction: true }]);
    expect(calls).toEqual([['setStatus', CAMPAIGN, 'CANCELLED', at]]);
    expect(failed).toEqual([{ campaignId: CAMPAIGN, reason: 'The campaign was cancelled before this mail was handed to SMTP', inTransaction: true }]);
  });

  it.each(['DRAFT', 'SENT', 'CANCELLED'] as const)('refuses a %s campaign with 409 CAMPAIGN_NOT_CANCELLABLE', async (status) => {
    const { cancel, calls, failed } = setup(status);
    const err = await cancel.execute(PROJECT, CAMPAIGN).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CAMPAIGN_NOT_CANCELLABLE', message: `A ${status} campaign cannot be cancelled (only SCHEDULED or SENDING ones)` });
    expect((err as { getStatus(): number }).getStatus()).toBe(409);
    expect(calls).toEqual([]);
    expect(failed).toEqual([]);
  });
});
