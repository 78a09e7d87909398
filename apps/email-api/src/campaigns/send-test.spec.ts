import { UnsubscribeLinks } from '../emails/unsubscribe-links';
import { CAMPAIGN, PROJECT, campaignRow, fakeCampaigns, fakeDomains, fakeTransactions } from '../../test/campaign-fakes';
import type { CampaignRow } from './campaign';
import { CampaignMail } from './campaign-mail';
import { SendCampaignTest } from './send-test';

function setup(contact: { id: string; email: string; subscribed: boolean; data: Record<string, unknown> } | null, from = 'news@brand.test', overrides: Partial<CampaignRow> = {}) {
  const { transactions, state } = fakeTransactions();
  const { campaigns } = fakeCampaigns(campaignRow({ subject: 'Hi {{data.first ?? "there"}}', body: '<p>{{email}}</p>', from_email: from, ...overrides }));
  const { domains } = fakeDomains(['brand.test']);
  const lookups: string[] = [];
  const contacts = {
    record: async (_p: string, email: string, change: { defaultSubscribed: boolean }) => {
      lookups.push(email);
      return { contact: contact ?? { id: 'cnt_new', email, subscribed: change.defaultSubscribed, data: {} }, isNew: !contact };
    },
  };
  const links = { url: (id: string) => `https://mail.test/unsubscribe/${id}.sig` } as unknown as UnsubscribeLinks;
  const events: string[] = [];
  const enqueued: Array<Record<string, unknown>> = [];
  const queue = {
    enqueue: async (email: Record<string, unknown>) => (enqueued.push(email), events.push(`enqueue(inTransaction=${state.open > 0})`), { id: 'eml_1', status: 'QUEUED' }),
    flush: () => void events.push(`flush(inTransaction=${state.open > 0})`),
  };
  const test = new SendCampaignTest(transactions, campaigns, domains, contacts as never, new CampaignMail(links), queue as never);
  return { test, lookups, enqueued, events };
}

describe('SendCampaignTest', () => {
  it('renders the campaign for the address\'s contact with a [Test] subject and wakes the sender after the commit', async () => {
    const { test, lookups, enqueued, events } = setup({ id: 'cnt_1', email: 'ann@x.test', subscribed: true, data: { first: 'Ann' } });
    await expect(test.execute(PROJECT, CAMPAIGN, '  Ann@X.test ')).resolves.toEqual({ email: 'ann@x.test', emailId: 'eml_1', status: 'QUEUED' });
    expect(lookups).toEqual(['ann@x.test']);
    expect(enqueued).toEqual([
      expect.objectContaining({
        projectId: PROJECT,
        contactId: 'cnt_1',
        kind: 'TRANSACTIONAL',
        source: 'CAMPAIGN',
        to: 'ann@x.test',
        from: 'news@brand.test',
        subject: '[Test] Hi Ann',
        html: '<p>ann@x.test</p>',
        attachments: [],
        data: { campaignTest: CAMPAIGN },
        headers: expect.objectContaining({ 'List-Unsubscribe': '<https://mail.test/unsubscribe/cnt_1.sig>', 'X-Campaign-Id': CAMPAIGN }),
      }),
    ]);
    expect(events).toEqual(['enqueue(inTransaction=true)', 'flush(inTransaction=false)']);
  });

  it('records a contact for an address without one (unsubscribed), so that its unsubscribe link names a real contact', async () => {
    const { test, enqueued } = setup(null);
    await test.execute(PROJECT, CAMPAIGN, 'new@x.test');
    expect(enqueued[0]).toMatchObject({ contactId: 'cnt_new', to: 'new@x.test', subject: '[Test] Hi there' });
    expect(enqueued[0]['headers']).toMatchObject({ 'List-Unsubscribe': '<https://mail.test/unsubscribe/cnt_new.sig>' });
  });

  it('refuses when the sender\'s domain is no longer verified, sending nothing', async () => {
    const { test, enqueued, events } = setup(null, 'news@gone.test');
    await expect(test.execute(PROJECT, CAMPAIGN, 'a@x.test')).rejects.toMatchObject({ code: 'domain_not_verified' });
    expect(enqueued).toEqual([]);
    expect(events).toEqual([]);
  });

  it('previews a variant of the A/B test: its subject and body, the campaign\'s where it gives none', async () => {
    const ab_test = { variants: [{ subject: 'A for {{email}}', body: null }, { subject: null, body: '<p>B</p>' }], testShare: 10, metric: 'opens' as const, waitMinutes: 5 };
    const { test, enqueued } = setup(null, 'news@brand.test', { ab_test });
    await test.execute(PROJECT, CAMPAIGN, 'a@x.test', 'A');
    await test.execute(PROJECT, CAMPAIGN, 'a@x.test', 'B');
    expect(enqueued.map((e) => [e.subject, e.html])).toEqual([
      ['[Test] A for a@x.test', '<p>a@x.test</p>'],
      ['[Test] Hi there', '<p>B</p>'],
    ]);
    await expect(test.execute(PROJECT, CAMPAIGN, 'a@x.test', 'C')).rejects.toMatchObject({ status: 422, errors: [{ field: 'variant', message: 'this test has the variants A, B' }] });
  });

  it('refuses a variant of a campaign without an A/B test', async () => {
    const { test, enqueued } = setup(null);
    await expect(test.execute(PROJECT, CAMPAIGN, 'a@x.test', 'A')).rejects.toMatchObject({ status: 422, errors: [{ field: 'variant', message: 'the campaign has no A/B test' }] });
    expect(enqueued).toEqual([]);
  });
});
