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
      `UPDATE ${ctx.schema}.accounts SET token_expires_at = now() + make_interval(days => $2), token_refreshed_at = CASE WHEN $3::int IS NULL THEN NULL ELSE now() - make_interval(days => $3::int) END, token_issued_at = NULL, token_refresh_attempts = 0, last_problem = NULL, token_lease_until = NULL, account_status = 'connected', access_token = $4 WHERE id = $1`,
      [ctx.accountId(which), expiresInDays, refreshedDaysAgo, `token-${which}`],
    );
  const status = async (key: string) => (await ctx.t.http.get('/api/v1/status').set({ authorization: `Bearer ${key}` })).body;

  beforeAll(async () => {
    ctx = await startAutomationApp(env);
    const database = ctx.t.database!;
    second = await createTestApp(automationApiService, { ...ctx.env, DATABASE_URL: database.url, DATABASE_SCHEMA: database.schema ?? '' });
    // Both replicas' first ticks (at start) have read the unknown expiries from the platform.
    await Promise.all([ctx.t.app.get(TokenRefreshWorker).drain(), second.app.get(TokenRefreshWorker).drain()]);
  });
  afterAll(async () => {
    await second?.app.close();
    await ctx?.close();
  });
  beforeEach(() => {
    ctx.fakeA.reset();
    ctx.fakeB.reset();
  });

  const worker = () => ctx.t.app.get(TokenRefreshWorker);
  const row = async (which: 'a' | 'b') =>
    (await ctx.ds.query(`SELECT access_token, token_expires_at, token_issued_at, token_refreshed_at, token_refresh_attempts, account_status, last_problem FROM ${ctx.schema}.accounts WHERE id = $1`, [ctx.accountId(which)]))[0];

  it('learns the expiry of the configured token at start from the platform (debug_token), without refreshing it', async () => {
    // The AUTOMATION_API_KEY account (IG_ACCESS_TOKEN) and the create-account one (created after A's
    // first tick, read by the second replica's first tick): both known, neither refreshed.
    for (const which of ['a', 'b'] as const) {
      const fake = which === 'a' ? ctx.fakeA : ctx.fakeB;
      const r = await row(which);
      expect(r.access_token).toBe(`token-${which}`);
      expect(r.token_expires_at.getTime()).toBe(fake.state.tokenExpiresAt * 1000);
      expect(r.token_issued_at.getTime()).toBe(fake.state.tokenIssuedAt * 1000);
      expect(r.token_refreshed_at).toBeNull();
    }
    const s = await status(ctx.keyA);
    expect(s.token_expires_at).toBe(new Date(ctx.fakeA.state.tokenExpiresAt * 1000).toISOString());
    expect(s.token_expires_in_days).toBe(59);
    expect(s.token_refreshed_at).toBeNull();
    expect(s.problem).toBeNull();
  });

  it('falls back to the refresh answer when the platform does not inspect tokens', async () => {
    await ctx.ds.query(`UPDATE ${ctx.schema}.accounts SET token_expires_at = NULL, token_issued_at = NULL, token_lease_until = NULL WHERE id = $1`, [ctx.accountId('a')]);
    ctx.fakeA.fail({ path: '/debug_token', code: 100, status: 400, message: 'Unsupported get request.' });
    expect(await worker().drain()).toBe(1);
    expect(ctx.fakeA.requestsTo('/debug_token')).toHaveLength(1);
    expect(ctx.fakeA.requestsTo('/refresh_access_token')).toHaveLength(1);
    const r = await row('a');
    expect(r.access_token).toBe(ctx.fakeA.state.accessToken);
    expect(r.token_refreshed_at).not.toBeNull();
    expect((await status(ctx.keyA)).token_expires_in_days).toBe(59);
  });

  it('retries a failing refresh at every interval with the attempt in /status problem, and clears it once a refresh works', async () => {
    await set('a', 3, 57);
    ctx.fakeA.fail({ path: '/refresh_access_token', code: 2, status: 500, times: 2 });
    expect(await worker().drain()).toBe(1);
    expect((await status(ctx.keyA)).problem).toMatch(/^Token refresh failed: .*\(attempt 1; tried again every 60 min until the token expires at /);
    // The next interval (the lease ran out).
    await ctx.ds.query(`UPDATE ${ctx.schema}.accounts SET token_lease_until = NULL WHERE id = $1`, [ctx.accountId('a')]);
    expect(await worker().drain()).toBe(1);
    expect((await status(ctx.keyA)).problem).toMatch(/\(attempt 2;/);
    expect((await row('a')).account_status).toBe('connected');
    await ctx.ds.query(`UPDATE ${ctx.schema}.accounts SET token_lease_until = NULL WHERE id = $1`, [ctx.accountId('a')]);
    expect(await worker().drain()).toBe(1);
    expect(ctx.fakeA.requestsTo('/refresh_access_token')).toHaveLength(3);
    const after = await status(ctx.keyA);
    expect(after.problem).toBeNull();
    expect(after.token_expires_in_days).toBe(59);
    expect(after.token_refreshed_at).not.toBeNull();
    expect((await row('a')).token_refresh_attempts).toBe(0);
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

  it('keeps a refreshed token across a restart with the same IG_ACCESS_TOKEN, and takes a new IG_ACCESS_TOKEN', async () => {
    await set('a', 3, 57);
    expect(await worker().drain()).toBe(1);
    const refreshed = ctx.fakeA.state.accessToken;
    expect(refreshed).toMatch(/^refreshed-/);
    const refreshedAt = (await status(ctx.keyA)).token_refreshed_at;
    expect(refreshedAt).not.toBeNull();

    await ctx.restart();
    expect((await row('a')).access_token).toBe(refreshed);
    const s = await status(ctx.keyA);
    expect(s).toMatchObject({ account_status: 'connected', problem: null, token_expires_in_days: 59, token_refreshed_at: refreshedAt });
    expect(ctx.fakeA.requests.at(-1)!.headers.authorization).toBe(`Bearer ${refreshed}`);
    expect(await worker().drain()).toBe(0);

    // The operator configures another token: it is taken, its expiry learned at start.
    ctx.fakeA.state.accessToken = 'token-a2';
    ctx.env.IG_ACCESS_TOKEN = 'token-a2';
    await ctx.restart();
    await worker().drain();
    const r = await row('a');
    expect(r).toMatchObject({ access_token: 'token-a2', token_refreshed_at: null, account_status: 'connected' });
    expect(r.token_expires_at.getTime()).toBe(ctx.fakeA.state.tokenExpiresAt * 1000);
  });

  it('uses the app clock: a token becomes due when the clock reaches TOKEN_REFRESH_BEFORE_DAYS before its expiry', async () => {
    await set('a', 20, 40);
    expect(await ctx.t.app.get(TokenRefreshWorker).drain()).toBe(0);
    ctx.t.app.get(Clock).advance(11 * 86_400_000);
    expect(await ctx.t.app.get(TokenRefreshWorker).drain()).toBe(1);
    expect(ctx.fakeA.requestsTo('/refresh_access_token')).toHaveLength(1);
  });

});
