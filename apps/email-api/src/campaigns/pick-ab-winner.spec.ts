import { CAMPAIGN, PROJECT, campaignRow, fakeCampaignRows, fakeCampaigns, fakeOutbox, fakeTransactions } from '../../test/campaign-fakes';
import type { AbGroupCounts, AbTestConfig } from './ab-test';
import type { CampaignRow } from './campaign';
import type { CampaignsRepository } from './campaigns.repository';
import { PickAbWinner } from './pick-ab-winner';

const abTest: AbTestConfig = { variants: [{ subject: 'A', body: null }, { subject: 'B', body: null }, { subject: 'C', body: null }], testShare: 20, metric: 'opens', waitMinutes: 60 };
const group = (variant: number | null, delivered: number, opened: number, clicked = 0): AbGroupCounts => ({ variant, recipients: delivered, sent: delivered, delivered, opened, clicked });

function setup(row: CampaignRow, groups: AbGroupCounts[] = []) {
  const { transactions, state } = fakeTransactions();
  const inTx = () => state.open > 0;
  const { campaigns, reads } = fakeCampaigns(row, inTx);
  const { rows, calls } = fakeCampaignRows(row);
  const { outbox, enqueued } = fakeOutbox(inTx);
  const repo = Object.assign(rows, { abGroups: async (id: string) => (calls.push(['abGroups', id]), groups) }) as CampaignsRepository;
  return { pick: new PickAbWinner(transactions, campaigns, repo, outbox), calls, enqueued, reads, state };
}

const running = (overrides: Partial<CampaignRow> = {}) => campaignRow({ status: 'SENDING', ab_test: abTest, ab_phase: 'waiting', ...overrides });

describe('PickAbWinner', () => {
  it('early without a variant: the best by the metric, recorded, the winner phase and the first fan-out message in one transaction', async () => {
    const { pick, calls, enqueued, reads, state } = setup(running(), [group(0, 10, 1), group(1, 10, 5), group(2, 10, 2), group(null, 3, 3)]);
    const campaign = await pick.early(PROJECT, CAMPAIGN);
    expect(campaign.abTest).toMatchObject({ phase: 'winner', winner: 'B' });
    expect(reads).toEqual([{ id: CAMPAIGN, lock: true, inTransaction: true }]);
    const started = calls.find((c) => c[0] === 'startWinner')!;
    expect(started.slice(0, 3)).toEqual(['startWinner', CAMPAIGN, 1]);
    expect(started[3]).toMatchObject({
      by: 'metric',
      trigger: 'early',
      tie: false,
      figures: [
        { variant: 'A', delivered: 10, successes: 1, rate: 0.1 },
        { variant: 'B', delivered: 10, successes: 5, rate: 0.5 },
        { variant: 'C', delivered: 10, successes: 2, rate: 0.2 },
      ],
      significance: { metric: 'opens', variants: ['B', 'C'], significant: false },
    });
    expect(enqueued).toEqual([{ type: 'email.campaign_batch', data: { projectId: PROJECT, campaignId: CAMPAIGN, batch: 1 }, inTransaction: true }]);
    expect(state.opened).toBe(1);
  });

  it('early with a variant: that one, recorded as forced; the test\'s clicks metric', async () => {
    const { pick, calls } = setup(running({ ab_test: { ...abTest, metric: 'clicks' }, ab_phase: 'testing' }), [group(0, 10, 9, 1), group(1, 10, 0, 4)]);
    await pick.early(PROJECT, CAMPAIGN, 'A');
    const started = calls.find((c) => c[0] === 'startWinner')!;
    expect(started[2]).toBe(0);
    expect(started[3]).toMatchObject({ by: 'forced', trigger: 'early', figures: [{ variant: 'A', successes: 1 }, { variant: 'B', successes: 4 }, { variant: 'C', successes: 0, delivered: 0 }] });
  });

  it('a tie goes to the earlier variant', async () => {
    const { pick, calls } = setup(running(), [group(0, 10, 3), group(1, 20, 6), group(2, 10, 1)]);
    await pick.early(PROJECT, CAMPAIGN);
    const started = calls.find((c) => c[0] === 'startWinner')!;
    expect(started[2]).toBe(0);
    expect(started[3]).toMatchObject({ tie: true });
  });

  it.each([
    ['no A/B test', campaignRow({ status: 'SENDING' }), 409, 'CAMPAIGN_NOT_AB_TEST'],
    ['a DRAFT', running({ status: 'DRAFT', ab_phase: null }), 409, 'AB_TEST_NOT_RUNNING'],
    ['a SENT campaign', running({ status: 'SENT', ab_phase: 'winner', ab_winner: 0 }), 409, 'AB_TEST_NOT_RUNNING'],
    ['a winner picked already', running({ ab_phase: 'winner', ab_winner: 2 }), 409, 'AB_WINNER_PICKED'],
  ])('early refuses %s', async (_name, row, status, code) => {
    const { pick, calls, enqueued } = setup(row);
    await expect(pick.early(PROJECT, CAMPAIGN)).rejects.toMatchObject({ status, code });
    expect(calls.filter((c) => c[0] === 'startWinner')).toEqual([]);
    expect(enqueued).toEqual([]);
  });

  it('early refuses a variant the test does not have (422, field variant)', async () => {
    const { pick } = setup(running({ ab_test: { ...abTest, variants: abTest.variants.slice(0, 2) } }));
    await expect(pick.early(PROJECT, CAMPAIGN, 'C')).rejects.toMatchObject({ status: 422, code: 'VALIDATION_ERROR', errors: [{ field: 'variant', message: 'this test has the variants A, B', code: 'invalid' }] });
  });

  it('early: 404 for a campaign of another project', async () => {
    const { pick } = setup(running());
    await expect(pick.early('00000000-0000-0000-0000-0000000000ff', CAMPAIGN)).rejects.toMatchObject({ status: 404, code: 'CAMPAIGN_NOT_FOUND' });
  });

  it('waitOver picks by the metric with trigger wait', async () => {
    const { pick, calls, enqueued } = setup(running(), [group(0, 10, 1), group(1, 10, 0)]);
    const picked = await pick.waitOver(CAMPAIGN);
    expect(picked).toMatchObject({ ab_phase: 'winner', ab_winner: 0 });
    expect(calls.find((c) => c[0] === 'startWinner')![3]).toMatchObject({ by: 'metric', trigger: 'wait' });
    expect(enqueued).toHaveLength(1);
  });

  it.each([
    ['picked early meanwhile', running({ ab_phase: 'winner', ab_winner: 1 })],
    ['cancelled meanwhile', running({ status: 'CANCELLED' })],
    ['still testing', running({ ab_phase: 'testing' })],
  ])('waitOver does nothing for a campaign %s', async (_name, row) => {
    const { pick, calls, enqueued } = setup(row);
    await expect(pick.waitOver(CAMPAIGN)).resolves.toBeNull();
    expect(calls).toEqual([['lockForFanout', CAMPAIGN]]);
    expect(enqueued).toEqual([]);
  });
});
