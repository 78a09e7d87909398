import { request } from 'undici';
import { createTestApp, startFakeGraphApi, type FakeGraphApi, type TestApp } from '@platform/testing';
import { startAutomationApp, type AutomationTestContext } from '../../test/automation-app';
import { AccountsService } from '../accounts/accounts.service';
import { CommentPollerWorker } from '../comment-poller/comment-poller.worker';
import { TokenCipher, parseTokenKey } from '../accounts/token-cipher';
import { ConnectService } from '../connect/connect.service';
import { Clock } from '../common/clock';
import type { AutomationConfig } from '../config';
import { automationApiService } from '../service';
import { TokenRefreshWorker } from './token-refresh.worker';

const TOKEN_KEY = '5f1c2b7a9e0d4c3b8a7f6e5d4c3b2a1908f7e6d5c4b3a2918f7e6d5c4b3a2910';
const cipher = new TokenCipher(parseTokenKey(TOKEN_KEY));

/**
 * The token scheduler: refreshes tokens close to expiry, once across replicas, and shows the new
 * expiry in /status; tokens are stored encrypted (AUTOMATION_TOKEN_KEY); an account connected through
 * the platform's OAuth login (fake Graph API C serves the login endpoints).
 */
describe('token refresh scheduler (e2e)', () => {
  let ctx: AutomationTestContext;
  let second: TestApp<AutomationConfig>;
  let fakeC: FakeGraphApi;
  let env: Record<string, string>;
  const set = (which: 'a' | 'b', expiresInDays: number, refreshedDaysAgo: number | null) =>
    ctx.ds.query(
      `UPDATE ${ctx.schema}.accounts SET token_expires_at = now() + make_interval(days => $2), token_refreshed_at = CASE WHEN $3::int IS NULL THEN NULL ELSE now() - make_interval(days => $3::int) END, token_issued_at = NULL, token_refresh_attempts = 0, last_problem = NULL, token_lease_until = NULL, account_status = 'connected', access_token = $4 WHERE id = $1`,
      [ctx.accountId(which), expiresInDays, refreshedDaysAgo, `token-${which}`],
    );
  const status = async (key: string) => (await ctx.t.http.get('/api/v1/status').set({ authorization: `Bearer ${key}` })).body;

  beforeAll(async () => {
    fakeC = await startFakeGraphApi({ accessToken: 'not-issued-yet', userId: '1780000000000003', username: 'brand_c', appId: 'app-1', appSecret: 'app-secret' });
    env = {
      TOKEN_REFRESH_INTERVAL_MS: '3600000',
      TOKEN_REFRESH_BEFORE_DAYS: '10',
      AUTOMATION_TOKEN_KEY: TOKEN_KEY,
      IG_APP_ID: 'app-1',
      IG_OAUTH_AUTHORIZE_URL: `${fakeC.origin}/oauth/authorize`,
      IG_OAUTH_TOKEN_URL: `${fakeC.origin}/oauth/access_token`,
    };
    ctx = await startAutomationApp(env);
    const database = ctx.t.database!;
    second = await createTestApp(automationApiService, { ...ctx.env, DATABASE_URL: database.url, DATABASE_SCHEMA: database.schema ?? '' });
    // Both replicas' first ticks (at start) have read the unknown expiries from the platform.
    await Promise.all([ctx.t.app.get(TokenRefreshWorker).drain(), second.app.get(TokenRefreshWorker).drain()]);
  });
  afterAll(async () => {
    await second?.app.close();
    await ctx?.close();
    await fakeC?.close();
  });
  beforeEach(() => {
    ctx.fakeA.reset();
    ctx.fakeB.reset();
  });

  const worker = () => ctx.t.app.get(TokenRefreshWorker);
  /** The account row; `access_token` decrypted, `stored_token` as stored. */
  const rowById = async (id: number) => {
    const r = (await ctx.ds.query(`SELECT access_token, token_expires_at, token_issued_at, token_refreshed_at, token_refresh_attempts, account_status, last_problem, ig_user_id, ig_username FROM ${ctx.schema}.accounts WHERE id = $1`, [id]))[0];
    return { ...r, stored_token: r.access_token, access_token: r.access_token === null ? null : cipher.decrypt(r.access_token) };
  };
  const row = (which: 'a' | 'b') => rowById(ctx.accountId(which));

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

    // The `set` helper wrote B's token as plaintext (as rows of earlier versions hold it): it was read
    // as it is, and the restart encrypts it.
    expect((await row('b')).stored_token).toBe('token-b');
    await ctx.restart();
    expect((await row('a')).access_token).toBe(refreshed);
    for (const which of ['a', 'b'] as const) expect((await row(which)).stored_token).toMatch(/^enc:v1:/);
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


  it('the comment poller passes over an account on one replica per interval (claimDue lease)', async () => {
    await ctx.ds.query(`UPDATE ${ctx.schema}.comment_poll_accounts SET lease_until = NULL`);
    const [a, b] = await Promise.all([ctx.t.app.get(CommentPollerWorker).drain(), second.app.get(CommentPollerWorker).drain()]);
    expect(a + b).toBe(2);
    expect(ctx.fakeA.requestsTo(/\/media$/)).toHaveLength(1);
    expect(ctx.fakeB.requestsTo(/\/media$/)).toHaveLength(1);
  });

  describe('connecting an account through the platform login (OAuth)', () => {
    // The clock test above moved the app's clock: back to the real time.
    beforeAll(() => ctx.t.app.get(Clock).set(new Date()));
    /** Follows the login from the connect link's page to the platform's redirect back; answers the callback's query and the cookie. */
    const login = async (link: string, opts: { deny?: boolean } = {}) => {
      const page = await ctx.t.http.get('/connect/instagram').query({ link });
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.text).toContain('Connect with Instagram');
      expect(page.text).not.toMatch(/<script|https?:\/\/(?!automation\.example\.com)/);
      // the form's 303 goes to the authorization window: the page's form-action must allow its origin
      expect(page.headers['content-security-policy']).toContain(`form-action 'self' ${fakeC.origin};`);
      const start = await ctx.t.http.post('/connect/instagram/start').type('form').send({ link });
      expect(start.status).toBe(303);
      const authorize = new URL(start.headers.location);
      expect(`${authorize.origin}${authorize.pathname}`).toBe(`${fakeC.origin}/oauth/authorize`);
      expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
        client_id: 'app-1',
        redirect_uri: 'https://automation.example.com/connect/instagram/callback',
        response_type: 'code',
        scope: expect.stringContaining('instagram_business_manage_comments'),
        state: expect.stringMatching(/^[A-Za-z0-9_-]{40,}$/),
      });
      const cookie = ([] as string[]).concat(start.headers['set-cookie'] ?? []).find((c) => c.startsWith('automation_connect='))!;
      expect(cookie).toMatch(/HttpOnly/i);
      expect(cookie).toMatch(/SameSite=Lax/i);
      if (opts.deny) authorize.searchParams.set('deny', '1');
      const platform = await request(authorize.toString(), { method: 'GET' });
      await platform.body.dump();
      expect(platform.statusCode).toBe(302);
      const back = new URL(String(platform.headers.location));
      expect(`${back.origin}${back.pathname}`).toBe('https://automation.example.com/connect/instagram/callback');
      return { query: Object.fromEntries(back.searchParams), cookie: cookie.split(';')[0], code: back.searchParams.get('code') && `${back.searchParams.get('code')}${back.hash}` };
    };
    const callback = (query: Record<string, string>, cookie?: string) => {
      const req = ctx.t.http.get('/connect/instagram/callback').query(query);
      return cookie ? req.set('cookie', cookie) : req;
    };

    it('create-account without a token prints a connect link; the login stores the long-lived token encrypted and subscribes the webhooks', async () => {
      // The command, as `node main.js create-account shop` runs it.
      let out = '';
      const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((out += String(chunk)), true));
      try {
        await automationApiService.commands!['create-account'].run(ctx.t.app, ['shop'], ctx.t.config);
      } finally {
        write.mockRestore();
      }
      const id = Number(/^account (\d+) \(shop\)/m.exec(out)![1]);
      const key = /^API key: (\S+)$/m.exec(out)![1];
      const link = /https:\/\/automation\.example\.com\/connect\/instagram\?link=([A-Za-z0-9_-]+)/.exec(out)![1];
      // The account has no token yet (not connected); it reaches fake C's Graph API once connected.
      await ctx.ds.query(`UPDATE ${ctx.schema}.accounts SET graph_url = $2 WHERE id = $1`, [id, fakeC.url]);
      expect((await status(key)).account_status).toBe('not_connected');

      const { query, cookie, code } = await login(link);
      expect(code).toMatch(/#_$/);
      const done = await callback({ ...query, code: code! }, cookie);
      expect(done.status).toBe(200);
      expect(done.text).toContain('connected to @brand_c');
      expect(done.headers['set-cookie']?.[0]).toMatch(/^automation_connect=;/);
      // The code was exchanged (with the registered redirect URI), then the short-lived token for a long-lived one.
      const exchange = fakeC.requestsTo('/oauth/access_token', 'POST')[0];
      expect(exchange.body).toMatchObject({ client_id: 'app-1', client_secret: 'app-secret', grant_type: 'authorization_code', redirect_uri: 'https://automation.example.com/connect/instagram/callback', code: query.code });
      expect(fakeC.requestsTo('/access_token', 'GET')[0].query).toMatchObject({ grant_type: 'ig_exchange_token', client_secret: 'app-secret', access_token: expect.stringMatching(/^short-/) });
      const r = await rowById(id);
      expect(r.access_token).toBe(fakeC.state.accessToken);
      expect(r.access_token).toMatch(/^long-/);
      expect(r.stored_token).toMatch(/^enc:v1:/);
      expect(r.stored_token).not.toContain(r.access_token);
      expect(r).toMatchObject({ ig_user_id: '1780000000000003', ig_username: 'brand_c', account_status: 'connected' });
      expect(Math.abs(r.token_expires_at.getTime() - (Date.now() + 5_183_944_000))).toBeLessThan(60_000);
      expect(fakeC.state.subscribedFields).toEqual(['comments', 'messages', 'messaging_postbacks']);
      const s = await status(key);
      expect(s).toMatchObject({ account_status: 'connected', username: 'brand_c', token_expires_in_days: 59, problem: null, webhook_problem: null });

      // The state is single-use and the link is spent.
      expect((await callback({ ...query, code: code! }, cookie)).status).toBe(400);
      expect((await ctx.t.http.get('/connect/instagram').query({ link })).status).toBe(404);
      // The refresher rotates the connected token like any other (it is older than 24 hours by then).
      await ctx.ds.query(`UPDATE ${ctx.schema}.accounts SET token_expires_at = now() + interval '2 days', token_issued_at = now() - interval '58 days', token_lease_until = NULL WHERE id = $1`, [id]);
      await worker().drain();
      expect(fakeC.requestsTo('/refresh_access_token')).toHaveLength(1);
      expect((await rowById(id)).access_token).toBe(fakeC.state.accessToken);
      expect((await rowById(id)).access_token).toMatch(/^refreshed-/);
    });

    it('refuses a callback without the browser cookie, with another cookie, or with an unknown state; a cancelled login changes nothing', async () => {
      const { account } = await ctx.t.app.get(AccountsService).create({ name: 'csrf', graph_url: fakeC.url });
      const { url } = await ctx.t.app.get(ConnectService).createLink(account.id);
      const link = new URL(url).searchParams.get('link')!;
      const first = await login(link);
      // A code injected into another browser (no cookie, or that browser's own cookie) is refused.
      expect((await callback({ ...first.query, code: first.code! })).status).toBe(400);
      const other = await login(link);
      const crossed = await callback({ ...other.query, code: other.code! }, first.cookie);
      expect(crossed.status).toBe(400);
      expect(crossed.text).toContain('not started in this browser');
      expect((await callback({ code: 'x', state: 'made-up-state-0123456789' }, first.cookie)).status).toBe(400);
      // Cancelled on the platform: a page saying so, nothing stored.
      const denied = await login(link, { deny: true });
      const page = await callback(denied.query, denied.cookie);
      expect(page.status).toBe(200);
      expect(page.text).toContain('Connection cancelled');
      expect((await rowById(account.id)).access_token).toBeNull();
      // The link is still usable; the platform refusing the code shows a 502 page, and the link stays usable.
      const again = await login(link);
      fakeC.fail({ path: '/oauth/access_token', status: 400, code: 100, message: 'Invalid verification code format.' });
      const failed = await callback({ ...again.query, code: again.code! }, again.cookie);
      expect(failed.status).toBe(502);
      expect(failed.text).toContain('Invalid verification code format.');
      // The platform account is connected to the first account already: 409, nothing stored.
      const last = await login(link);
      const taken = await callback({ ...last.query, code: last.code! }, last.cookie);
      expect(taken.status).toBe(409);
      expect((await rowById(account.id)).access_token).toBeNull();
      // Bad input is a 400 before any lookup.
      expect((await ctx.t.http.get('/connect/instagram').query({ link: 'x' })).status).toBe(400);
    });
  });
});
