import type { AccountsService, WebhookAccount } from '../accounts/accounts.service';
import { WEBHOOK_ACCOUNTS_CACHED, WEBHOOK_ACCOUNT_FRESH_MS, WebhookAccounts } from './webhook-accounts';

/** A repository over a mutable account table that records every lookup. */
function fakeRepo(rows: WebhookAccount[]) {
  const reads: string[][] = [];
  const repo = {
    byIgUserIds: jest.fn(async (ids: string[]) => {
      reads.push(ids);
      const wanted = new Set(ids);
      return rows.filter((r) => wanted.has(r.ig_user_id)).map((r) => ({ ...r }));
    }),
  };
  return { repo: repo as unknown as AccountsService, reads };
}

describe('WebhookAccounts (the receiver’s account cache)', () => {
  let now = 1_000_000;
  beforeEach(() => jest.spyOn(Date, 'now').mockImplementation(() => now));
  afterEach(() => jest.restoreAllMocks());

  it('reads an account once and answers from memory while it is fresh, then reads it again', async () => {
    const rows = [{ id: 1, ig_user_id: 'ig1', app_secret: 's1' }];
    const f = fakeRepo(rows);
    const accounts = new WebhookAccounts(f.repo);
    expect(await accounts.find(['ig1'])).toEqual({ accounts: rows, cached: false });
    now += WEBHOOK_ACCOUNT_FRESH_MS - 1;
    rows[0].app_secret = 's2';
    expect(await accounts.find(['ig1'])).toEqual({ accounts: [{ id: 1, ig_user_id: 'ig1', app_secret: 's1' }], cached: true });
    expect(f.reads).toEqual([['ig1']]);
    now += 1;
    expect(await accounts.find(['ig1'])).toEqual({ accounts: [{ id: 1, ig_user_id: 'ig1', app_secret: 's2' }], cached: false });
    expect(f.reads).toEqual([['ig1'], ['ig1']]);
  });

  it('reads every id again when asked for fresh rows (a signature that matched no remembered secret)', async () => {
    const rows = [{ id: 1, ig_user_id: 'ig1', app_secret: 'old' }];
    const f = fakeRepo(rows);
    const accounts = new WebhookAccounts(f.repo);
    await accounts.find(['ig1']);
    rows[0].app_secret = 'new';
    expect(await accounts.find(['ig1'], true)).toEqual({ accounts: [{ id: 1, ig_user_id: 'ig1', app_secret: 'new' }], cached: false });
    expect(await accounts.find(['ig1'])).toEqual({ accounts: [{ id: 1, ig_user_id: 'ig1', app_secret: 'new' }], cached: true });
    expect(f.reads).toEqual([['ig1'], ['ig1']]);
  });

  it('never remembers an unknown id: an account connected later is found by its first delivery', async () => {
    const rows: WebhookAccount[] = [{ id: 1, ig_user_id: 'ig1', app_secret: null }];
    const f = fakeRepo(rows);
    const accounts = new WebhookAccounts(f.repo);
    expect((await accounts.find(['ig1', 'ig2'])).accounts.map((a) => a.id)).toEqual([1]);
    rows.push({ id: 2, ig_user_id: 'ig2', app_secret: null });
    expect(await accounts.find(['ig1', 'ig2'])).toEqual({ accounts: [rows[0], rows[1]], cached: true });
    expect(f.reads).toEqual([['ig1', 'ig2'], ['ig2']]);
  });

  it('forgets an account that is gone at its next read', async () => {
    const rows: WebhookAccount[] = [{ id: 1, ig_user_id: 'ig1', app_secret: null }];
    const f = fakeRepo(rows);
    const accounts = new WebhookAccounts(f.repo);
    await accounts.find(['ig1']);
    rows.pop();
    now += WEBHOOK_ACCOUNT_FRESH_MS;
    expect(await accounts.find(['ig1'])).toEqual({ accounts: [], cached: false });
    expect(await accounts.find(['ig1'])).toEqual({ accounts: [], cached: false });
    expect(f.reads).toEqual([['ig1'], ['ig1'], ['ig1']]);
  });

  it('remembers at most WEBHOOK_ACCOUNTS_CACHED accounts, forgetting the oldest read first', async () => {
    const rows = Array.from({ length: WEBHOOK_ACCOUNTS_CACHED + 1 }, (_v, i) => ({ id: i + 1, ig_user_id: `ig${i}`, app_secret: null }));
    const f = fakeRepo(rows);
    const accounts = new WebhookAccounts(f.repo);
    await accounts.find(rows.slice(0, WEBHOOK_ACCOUNTS_CACHED).map((r) => r.ig_user_id));
    await accounts.find([`ig${WEBHOOK_ACCOUNTS_CACHED}`]);
    f.reads.length = 0;
    await accounts.find(['ig1', `ig${WEBHOOK_ACCOUNTS_CACHED}`]);
    expect(f.reads).toEqual([]);
    await accounts.find(['ig0']);
    expect(f.reads).toEqual([['ig0']]);
  });
});
