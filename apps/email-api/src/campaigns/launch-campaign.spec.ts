import { CAMPAIGN, PROJECT, campaignRow, fakeCampaignRows, fakeCampaigns, fakeDomains, fakeOutbox, fakeTransactions } from '../../test/campaign-fakes';
import { BillingLimitReachedError, type BillingCategory } from '../billing/billing';
import type { CampaignRow } from './campaign';
import { LaunchCampaign } from './launch-campaign';

const SEGMENT = '00000000-0000-0000-0000-0000000000ee';

function setup(row: CampaignRow, recipients = 3, campaignsLeft: number | null = null) {
  const { transactions, state } = fakeTransactions();
  const inTx = () => state.open > 0;
  const { campaigns, reads } = fakeCampaigns(row, inTx);
  const { domains, checked } = fakeDomains(['brand.test']);
  const { rows, calls } = fakeCampaignRows(row);
  const { outbox, enqueued } = fakeOutbox(inTx);
  const counted: unknown[] = [];
  const segments = { countRecipients: async (_p: string, choice: unknown) => (counted.push(choice), recipients) };
  const roomAsked: Array<[BillingCategory, number]> = [];
  const billing = {
    assertRoom: async (_p: string, category: BillingCategory, n: number) => {
      roomAsked.push([category, n]);
      if (campaignsLeft !== null && n > campaignsLeft) throw new BillingLimitReachedError(category, 100, 100 - campaignsLeft, n, new Date('2026-02-01T00:00:00Z'));
    },
  };
  return { launch: new LaunchCampaign(transactions, campaigns, domains, segments as never, rows, outbox, billing as never), reads, checked, calls, enqueued, counted, roomAsked };
}

describe('LaunchCampaign', () => {
  it('moves a DRAFT to SENDING and enqueues the first fan-out batch in the same transaction', async () => {
    const { launch, reads, checked, calls, enqueued, counted } = setup(campaignRow({ audience_type: 'SEGMENT', segment_id: SEGMENT }));
    await expect(launch.execute(PROJECT, CAMPAIGN)).resolves.toMatchObject({ id: CAMPAIGN, status: 'SENDING', scheduledFor: null });
    expect(reads).toEqual([{ id: CAMPAIGN, lock: true, inTransaction: true }]);
    expect(checked).toEqual(['news@brand.test']);
    expect(counted).toEqual([{ type: 'SEGMENT', segmentId: SEGMENT, condition: null }]);
    expect(calls).toEqual([['setStatus', CAMPAIGN, 'SENDING', null]]);
    expect(enqueued).toEqual([{ type: 'email.campaign_batch', data: { projectId: PROJECT, campaignId: CAMPAIGN, batch: 1 }, inTransaction: true }]);
  });

  it('refuses up front (429 BILLING_LIMIT_REACHED) a campaign larger than what is left of the campaigns cap', async () => {
    const { launch, calls, enqueued, roomAsked } = setup(campaignRow(), 3, 2);
    const err = await launch.execute(PROJECT, CAMPAIGN).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BillingLimitReachedError);
    expect(err).toMatchObject({ code: 'BILLING_LIMIT_REACHED', category: 'campaigns' });
    expect((err as { getStatus(): number }).getStatus()).toBe(429);
    expect(roomAsked).toEqual([['campaigns', 3]]);
    expect(calls).toEqual([]);
    expect(enqueued).toEqual([]);
  });

  it('launches a campaign that fits exactly in what is left', async () => {
    const { launch, calls } = setup(campaignRow(), 3, 3);
    await expect(launch.execute(PROJECT, CAMPAIGN)).resolves.toMatchObject({ status: 'SENDING' });
    expect(calls).toEqual([['setStatus', CAMPAIGN, 'SENDING', null]]);
  });

  it('schedules a future scheduledFor without enqueuing anything', async () => {
    const { launch, calls, enqueued } = setup(campaignRow());
    const at = new Date(Date.now() + 3_600_000);
    await expect(launch.execute(PROJECT, CAMPAIGN, at)).resolves.toMatchObject({ status: 'SCHEDULED', scheduledFor: at });
    expect(calls).toEqual([['setStatus', CAMPAIGN, 'SCHEDULED', at]]);
    expect(enqueued).toEqual([]);
  });

  it('sends now when scheduledFor has passed', async () => {
    const { launch, calls, enqueued } = setup(campaignRow());
    await launch.execute(PROJECT, CAMPAIGN, new Date(Date.now() - 1000));
    expect(calls).toEqual([['setStatus', CAMPAIGN, 'SENDING', null]]);
    expect(enqueued).toHaveLength(1);
  });

  it('answers 400 NO_RECIPIENTS when the audience has no subscribed contact', async () => {
    const { launch, calls, enqueued } = setup(campaignRow(), 0);
    const err = await launch.execute(PROJECT, CAMPAIGN).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'NO_RECIPIENTS' });
    expect((err as { getStatus(): number }).getStatus()).toBe(400);
    expect(calls).toEqual([]);
    expect(enqueued).toEqual([]);
  });

  it.each(['SCHEDULED', 'SENDING', 'SENT', 'CANCELLED'] as const)('refuses a %s campaign with 409 CAMPAIGN_NOT_DRAFT', async (status) => {
    const { launch, checked } = setup(campaignRow({ status }));
    await expect(launch.execute(PROJECT, CAMPAIGN)).rejects.toMatchObject({ code: 'CAMPAIGN_NOT_DRAFT', message: `Only a DRAFT campaign can be sent; this one is ${status}` });
    expect(checked).toEqual([]);
  });

  it('refuses when the sender\'s domain is no longer verified', async () => {
    const { launch, counted } = setup(campaignRow({ from_email: 'a@gone.test' }));
    await expect(launch.execute(PROJECT, CAMPAIGN)).rejects.toMatchObject({ code: 'domain_not_verified' });
    expect(counted).toEqual([]);
  });
});
