import type { UnsubscribeLinks } from '../emails/unsubscribe-links';
import { CAMPAIGN, PROJECT, campaignRow, fakeCampaignRows, fakeOutbox, fakeTransactions } from '../../test/campaign-fakes';
import type { CampaignRow } from './campaign';
import { CampaignMail } from './campaign-mail';
import { FANOUT_BATCH, FanOutCampaignBatch } from './fan-out-batch';

const contact = (n: number) => ({ id: `cnt_${String(n).padStart(4, '0')}`, email: `c${n}@x.test`, subscribed: true, data: { n } });

function setup(row: CampaignRow | null, available: number, suppressedEmails: string[] = [], mailed: string[] = [], from = 0) {
  const { transactions, state } = fakeTransactions();
  const inTx = () => state.open > 0;
  const { rows, calls } = fakeCampaignRows(row, mailed);
  const { outbox, enqueued } = fakeOutbox(inTx);
  const asked: Array<{ choice: unknown; after: string | null; limit: number }> = [];
  const segments = {
    recipients: async (_p: string, choice: unknown, after: string | null, limit: number) =>
      (asked.push({ choice, after, limit }), Array.from({ length: Math.min(available, limit) }, (_, i) => contact(from + i + 1))),
    countRecipients: async () => (asked.push({ choice: 'count', after: null, limit: 0 }), available),
  };
  const batches: Array<{ projectId: string; campaign: unknown; mails: Array<Record<string, unknown>>; inTransaction: boolean }> = [];
  const events: string[] = [];
  const queue = {
    enqueueCampaignBatch: async (projectId: string, campaign: unknown, mails: Array<Record<string, unknown>>) => (batches.push({ projectId, campaign, mails, inTransaction: inTx() }), Math.max(0, mails.length - 1)),
    flush: () => void events.push(`flush(inTransaction=${inTx()})`),
  };
  const links = { url: (id: string) => `https://mail.test/u/${id}` } as unknown as UnsubscribeLinks;
  const suppressions = {
    blocking: async (projectId: string, emails: string[], kind: string) => {
      expect([projectId, kind]).toEqual([PROJECT, 'MARKETING']);
      return new Map(emails.filter((e) => suppressedEmails.includes(e)).map((e) => [e, { email: e, reason: 'complaint', source: 'api', createdAt: new Date() }]));
    },
  };
  const fanOut = new FanOutCampaignBatch(transactions, rows, segments as never, new CampaignMail(links), queue as never, outbox, suppressions as never);
  return { fanOut, calls, enqueued, asked, batches, events };
}

describe('FanOutCampaignBatch', () => {
  it('queues the next full batch after the cursor, moves the cursor and enqueues the next message, in one transaction', async () => {
    const row = campaignRow({ status: 'SENDING', fanout_after: 'cnt_0000', template_id: 'tpl-1', audience_type: 'FILTERED', audience_condition: { logic: 'AND', groups: [] } });
    const { fanOut, calls, enqueued, asked, batches, events } = setup(row, FANOUT_BATCH + 10);
    await fanOut.execute(CAMPAIGN, 4);
    expect(asked).toEqual([{ choice: { type: 'FILTERED', segmentId: null, condition: row.audience_condition }, after: 'cnt_0000', limit: FANOUT_BATCH }]);
    expect(batches).toHaveLength(1);
    expect(batches[0]).toMatchObject({ projectId: PROJECT, campaign: { id: CAMPAIGN, templateId: 'tpl-1' }, inTransaction: true });
    expect(batches[0].mails).toHaveLength(FANOUT_BATCH);
    expect(batches[0].mails[0]).toMatchObject({ contactId: 'cnt_0001', to: 'c1@x.test', from: 'news@brand.test', subject: 'Hello c1@x.test', headers: expect.objectContaining({ 'List-Unsubscribe': '<https://mail.test/u/cnt_0001>' }) });
    expect(calls).toEqual([['lockForFanout', CAMPAIGN], ['advance', CAMPAIGN, `cnt_${String(FANOUT_BATCH).padStart(4, '0')}`, FANOUT_BATCH - 1, false]]);
    expect(enqueued).toEqual([{ type: 'email.campaign_batch', data: { projectId: PROJECT, campaignId: CAMPAIGN, batch: 5 }, inTransaction: true }]);
    expect(events).toEqual(['flush(inTransaction=false)']);
  });

  it('ends the fan-out with a short batch and enqueues nothing more', async () => {
    const { fanOut, calls, enqueued } = setup(campaignRow({ status: 'SENDING' }), 3);
    await fanOut.execute(CAMPAIGN, 1);
    expect(calls[1]).toEqual(['advance', CAMPAIGN, 'cnt_0003', 2, true]);
    expect(enqueued).toEqual([]);
  });

  it('skips suppressed addresses and still moves the cursor past them', async () => {
    const { fanOut, calls, batches } = setup(campaignRow({ status: 'SENDING' }), 4, ['c2@x.test', 'c4@x.test']);
    await fanOut.execute(CAMPAIGN, 1);
    expect(batches[0].mails.map((m) => m.to)).toEqual(['c1@x.test', 'c3@x.test']);
    expect(calls[1]).toEqual(['advance', CAMPAIGN, 'cnt_0004', 1, true]);
  });

  it('ends an empty fan-out without moving the cursor', async () => {
    const { fanOut, calls, batches } = setup(campaignRow({ status: 'SENDING' }), 0);
    await fanOut.execute(CAMPAIGN, 1);
    expect(batches[0].mails).toEqual([]);
    expect(calls[1]).toEqual(['advance', CAMPAIGN, null, 0, true]);
  });

  it.each([
    ['a cancelled campaign', campaignRow({ status: 'CANCELLED' })],
    ['a finished fan-out (a redelivered message)', campaignRow({ status: 'SENDING', fanout_done: true })],
    ['a deleted campaign', null],
  ])('does nothing for %s', async (_name, row) => {
    const { fanOut, calls, asked, enqueued } = setup(row, 10);
    await fanOut.execute(CAMPAIGN, 2);
    expect(calls).toEqual([['lockForFanout', CAMPAIGN]]);
    expect(asked).toEqual([]);
    expect(enqueued).toEqual([]);
  });

  describe('with an A/B test', () => {
    const abTest = { variants: [{ subject: 'A {{email}}', body: null }, { subject: null, body: '<p>B</p>' }], testShare: 20, metric: 'opens' as const, waitMinutes: 60 };

    it('testing: counts the audience at the first batch, writes only the drawn contacts with their variant\'s content, and stores the drawing', async () => {
      const row = campaignRow({ status: 'SENDING', ab_test: abTest, ab_phase: 'testing' });
      const { fanOut, calls, batches, asked } = setup(row, 40);
      await fanOut.execute(CAMPAIGN, 1);
      expect(asked[1]).toEqual({ choice: 'count', after: null, limit: 0 });
      const mails = batches[0].mails;
      expect(mails).toHaveLength(8);
      expect(mails.filter((m) => m.variant === 0)).toHaveLength(4);
      expect(mails.filter((m) => m.variant === 1)).toHaveLength(4);
      for (const m of mails) {
        if (m.variant === 0) expect(m).toMatchObject({ subject: `A ${m.to}`, html: '<p>Hi</p>' });
        else expect(m).toMatchObject({ subject: `Hello ${m.to}`, html: '<p>B</p>' });
      }
      expect(calls[1]).toEqual(['advance', CAMPAIGN, 'cnt_0040', 7, true, { audience: 40, testSize: 8, seen: 40, selected: 8 }]);
    });

    it('testing: a later batch carries on from the stored drawing, without counting again', async () => {
      const row = campaignRow({ status: 'SENDING', ab_test: abTest, ab_phase: 'testing', ab_audience: 1000, ab_test_size: 200, ab_seen: 500, ab_selected: 101, fanout_after: 'cnt_0500' });
      const { fanOut, calls, batches, asked } = setup(row, 500, [], [], 500);
      await fanOut.execute(CAMPAIGN, 2);
      expect(asked.map((a) => a.choice)).not.toContain('count');
      expect(batches[0].mails).toHaveLength(99);
      expect(calls[1]).toEqual(['advance', CAMPAIGN, 'cnt_1000', 98, false, { audience: 1000, testSize: 200, seen: 1000, selected: 200 }]);
    });

    it('winner: everyone without the campaign\'s mail gets the winner\'s content, no variant recorded', async () => {
      const row = campaignRow({ status: 'SENDING', ab_test: abTest, ab_phase: 'winner', ab_winner: 1 });
      const { fanOut, calls, batches } = setup(row, 5, ['c5@x.test'], ['cnt_0002', 'cnt_0004']);
      await fanOut.execute(CAMPAIGN, 1);
      expect(batches[0].mails.map((m) => m.to)).toEqual(['c1@x.test', 'c3@x.test']);
      expect(batches[0].mails[0]).toMatchObject({ subject: 'Hello c1@x.test', html: '<p>B</p>' });
      expect(batches[0].mails[0]).not.toHaveProperty('variant');
      expect(calls[1]).toEqual(['mailedContacts', CAMPAIGN, 4]);
      expect(calls[2]).toEqual(['advance', CAMPAIGN, 'cnt_0005', 1, true]);
    });
  });
});
