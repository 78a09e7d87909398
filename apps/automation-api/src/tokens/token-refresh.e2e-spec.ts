import { createTestApp, type TestApp } from '@platform/testing';
import { startAutomationApp, type AutomationTestContext } from '../../test/automation-app';
import { Clock } from '../common/clock';
import type { AutomationConfig } from '../config';
import { automationApiService } from '../service';
import { TokenRefreshWorker } from './token-refresh.worker';

/** The token scheduler: refreshes tokens close to expiry, once across replicas, and shows the new expiry in /status. */
describe('token refresh scheduler (e2e)', () => {
  let ctx: AutomationTestContext;
  let second: TestApp<AutomationConfig>;
  const env = { TOKEN_REFRESH_INTERVAL_MS: '3600000', TOKEN_REFRESH_BEFORE_DAYS: '10' };
  const set = (which: 'a' | 'b', expiresInDays: number, refreshedDaysAgo: number | null) =>
    ctx.ds.query(
      `UPDATE ${ctx.schema}.accounts SET token_expires_at = now() + make_interval(days => $2), token_refreshed_at = CASE WHEN $3::int IS NULL THEN NULL ELSE now() - make_interval(days => $3::int) END, token_lease_until = NULL, account_status = 'connected', access_token = $4 WHERE id = $1`,
      [ctx.accountId(which), expiresInDays, refreshedDaysAgo, `token-${which}`],
    );
  const status = async (key: string) => (await ctx.t.http.get('/api/v1/status').set({ authorization: `Bearer ${key}` })).body;

  beforeAll(async () => {
    ctx = await startAutomationApp(env);
    const database = ctx.t.database!;
    second = await createTestApp(automationApiService, { ...ctx.env, DATABASE_URL: database.url, DATABASE_SCHEMA: database.schema ?? '' });
  });
  afterAll(async () => {
    await second?.app.close();
    await ctx?.close();
  });
  beforeEach(() => {
    ctx.fakeA.reset();
    ctx.fakeB.reset();
  });

  it('refreshes a token that expires within TOKEN_REFRESH_BEFORE_DAYS once, with two replicas ticking together', async () => {
    await set('a', 3, 57);
    await set('b', 30, 30);
    const before = (await status(ctx.keyA)).token_expires_in_days;
    expect(before).toBeLessThan(4);

    // Both replicas' loops and drains run against the same rows (a loop's first tick may be under way
    // too: drain waits for it); the account is claimed by one of them, so the platform sees one refresh.
    await Promise.all([ctx.t.app.get(TokenRefreshWorker).drain(), second.app.get(TokenRefreshWorker).drain()]);
    expect(ctx.fakeA.requestsTo('/refresh_access_token')).toHaveLength(1);
    expect(ctx.fakeB.requestsTo('/refresh_access_token')).toHaveLength(0);

    // The new token is stored and used; /status shows the new expiry (60 days).
    const after = await status(ctx.keyA);
    expect(after.token_expires_in_days).toBe(59);
    expect(after.account_status).toBe('connected');
    expect(ctx.fakeA.state.accessToken).toMatch(/^refreshed-/);
    expect(ctx.fakeA.requests.at(-1)!.headers.authorization).toBe(`Bearer ${ctx.fakeA.state.accessToken}`);

    // Nothing is due any more.
    expect(await ctx.t.app.get(TokenRefreshWorker).drain()).toBe(0);
  });

  it('leaves tokens younger than 24 hours and expired tokens alone; a refused refresh is kept as the account problem', async () => {
    await set('a', 3, 0);
    await set('b', -1, 59);
    expect(await ctx.t.app.get(TokenRefreshWorker).drain()).toBe(0);

    await set('a', 3, 57);
    ctx.fakeA.fail({ path: '/refresh_access_token', code: 190, status: 400 });
    expect(await ctx.t.app.get(TokenRefreshWorker).drain()).toBe(1);
    const [row] = await ctx.ds.query(`SELECT account_status, last_problem FROM ${ctx.schema}.accounts WHERE id = $1`, [ctx.accountId('a')]);
    expect(row).toMatchObject({ account_status: 'token_invalid', last_problem: expect.stringContaining('Token refresh failed') });
    expect((await status(ctx.keyA)).problem).toMatch(/^Token refresh failed: /);
    // The lease holds it until the next interval: no second attempt in the same one.
    expect(await ctx.t.app.get(TokenRefreshWorker).drain()).toBe(0);
  });

  it('uses the app clock: a token becomes due when the clock reaches TOKEN_REFRESH_BEFORE_DAYS before its expiry', async () => {
    await set('a', 20, 40);
    expect(await ctx.t.app.get(TokenRefreshWorker).drain()).toBe(0);
    ctx.t.app.get(Clock).advance(11 * 86_400_000);
    expect(await ctx.t.app.get(TokenRefreshWorker).drain()).toBe(1);
    expect(ctx.fakeA.requestsTo('/refresh_access_token')).toHaveLength(1);
  });
});
