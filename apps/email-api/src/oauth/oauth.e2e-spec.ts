import { hashPassword } from '@platform/auth';
import { startFakeOAuthProvider, type FakeOAuthProvider } from '@platform/testing';
import { createHash } from 'node:crypto';
import { Database } from '@platform/database';
import { sessionCookie, startEmailApi, type EmailTestApp } from '../../test/helpers';
import { UsersRepository } from '../access/users.repository';

const DASHBOARD = 'http://dashboard.example.com/app';

/** The `name=value` of the OAuth state cookie set when a login starts. */
function stateCookie(headers: Record<string, unknown>): string {
  const list = ([] as string[]).concat((headers['set-cookie'] as string[] | string | undefined) ?? []);
  const cookie = list.find((c) => c.startsWith('email_oauth_state='));
  if (!cookie) throw new Error('no OAuth state cookie in the response');
  return cookie.split(';')[0];
}

describe('OAuth login with GitHub and Google (e2e)', () => {
  let fake: FakeOAuthProvider;
  let t: EmailTestApp;
  /** Only GitHub configured, signups disabled. */
  let closed: EmailTestApp;

  beforeAll(async () => {
    fake = await startFakeOAuthProvider();
    t = await startEmailApi({ ...fake.env, DASHBOARD_URL: DASHBOARD });
    const { GITHUB_CLIENT_ID, GITHUB_CLIENT_SECRET, GITHUB_OAUTH_URL, GITHUB_API_URL } = fake.env;
    closed = await startEmailApi({ GITHUB_CLIENT_ID, GITHUB_CLIENT_SECRET, GITHUB_OAUTH_URL, GITHUB_API_URL, DISABLE_SIGNUPS: 'true' });
  });
  afterAll(async () => {
    await t?.close();
    await closed?.close();
    await fake?.close();
  });

  /** The whole browser round trip: start, consent at the fake as `login`, callback with the state cookie. */
  async function oauthLogin(app: EmailTestApp, provider: 'github' | 'google', login: string) {
    const start = await app.http.get(`/auth/oauth/${provider}`).expect(302);
    const cookie = stateCookie(start.headers);
    const authorized = await fake.authorize(start.headers.location as string, login);
    const callback = await app.http.get(authorized.path).set('Cookie', cookie);
    return { start, cookie, authorized, callback };
  }

  async function me(app: EmailTestApp, headers: Record<string, unknown>) {
    return (await app.http.get('/users/@me').set('Cookie', sessionCookie(headers)).expect(200)).body as { id: string; email: string; name: string; emailVerified: boolean };
  }

  const userCount = async (app: EmailTestApp, email: string) =>
    Number((await app.app.get(Database).rows<{ n: number }>(`SELECT count(*)::int AS n FROM ${app.config.DATABASE_SCHEMA}.users WHERE email = $1`, [email]))[0].n);

  it('lists exactly the configured providers; others are 404 in the error envelope', async () => {
    expect((await t.http.get('/auth/oauth-config').expect(200)).body).toEqual({ password: true, signupsEnabled: true, providers: ['github', 'google'] });
    expect((await t.http.get('/config').expect(200)).body.oauthProviders).toEqual(['github', 'google']);
    expect((await closed.http.get('/auth/oauth-config').expect(200)).body).toEqual({ password: true, signupsEnabled: false, providers: ['github'] });
    const google = await closed.http.get('/auth/oauth/google').expect(404);
    expect(google.body).toMatchObject({ success: false, error: { code: 'OAUTH_PROVIDER_NOT_FOUND', statusCode: 404 } });
    expect(google.body.error.suggestion).toContain('github');
    expect((await closed.http.get('/auth/oauth/google/callback?code=x&state=y').expect(404)).body.error.code).toBe('OAUTH_PROVIDER_NOT_FOUND');
    expect((await t.http.get('/auth/oauth/facebook').expect(404)).body.error.code).toBe('OAUTH_PROVIDER_NOT_FOUND');
  });

  it('GitHub: redirects with client, callback, scope, state and PKCE; the callback creates the user and sets the session', async () => {
    fake.addGithubUser({ login: 'octo-new', name: 'Octo New', email: 'public@octo.example.com', emails: [
      { email: 'secondary@octo.example.com', primary: false, verified: true },
      { email: 'Octo.New@Example.com', primary: true, verified: true },
    ] });
    const { start, authorized, callback } = await oauthLogin(t, 'github', 'octo-new');

    const url = new URL(start.headers.location as string);
    expect(`${url.origin}${url.pathname}`).toBe(`${fake.origin}/github/login/oauth/authorize`);
    expect(url.searchParams.get('client_id')).toBe(fake.clients.github.id);
    expect(url.searchParams.get('redirect_uri')).toBe(`${t.config.PUBLIC_BASE_URL}/auth/oauth/github/callback`);
    expect(url.searchParams.get('scope')).toBe('read:user user:email');
    expect(url.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(String(start.headers['set-cookie'])).toMatch(/email_oauth_state=.*HttpOnly/i);
    expect(authorized.state).toBe(url.searchParams.get('state'));

    expect(callback.status).toBe(302);
    expect(callback.headers.location).toBe(DASHBOARD);
    expect(String(callback.headers['set-cookie'])).toMatch(/email_session=.*HttpOnly.*SameSite=Lax/i);
    // The token request carried the verifier of the challenge sent on authorize.
    const tokenCall = fake.requestsTo('/github/login/oauth/access_token', 'POST').find((r) => r.body.code === authorized.code)!;
    expect(createHash('sha256').update(tokenCall.body.code_verifier).digest('base64url')).toBe(url.searchParams.get('code_challenge'));
    expect(tokenCall.body.redirect_uri).toBe(url.searchParams.get('redirect_uri'));

    const user = await me(t, callback.headers);
    expect(user).toMatchObject({ email: 'octo.new@example.com', name: 'Octo New', emailVerified: true });
    // No password: password login is refused.
    expect((await t.http.post('/auth/login').send({ email: 'octo.new@example.com', password: 'anything at all' }).expect(401)).body.error.code).toBe('INVALID_CREDENTIALS');

    // A second login finds the same user.
    const again = await oauthLogin(t, 'github', 'octo-new');
    expect(again.callback.status).toBe(302);
    expect((await me(t, again.callback.headers)).id).toBe(user.id);
    await expect(userCount(t, 'octo.new@example.com')).resolves.toBe(1);
  });

  it('Google: logs in the existing password account with the same email and links it', async () => {
    const signup = await t.http.post('/auth/signup').send({ email: 'ada@example.com', password: 'long enough pw', name: 'Ada' }).expect(201);
    fake.addGoogleUser({ sub: 'google-ada', email: 'ada@example.com', name: 'Ada G' });
    const { start, callback } = await oauthLogin(t, 'google', 'google-ada');

    const url = new URL(start.headers.location as string);
    expect(`${url.origin}${url.pathname}`).toBe(`${fake.origin}/google/o/oauth2/v2/auth`);
    expect(url.searchParams.get('scope')).toBe('openid email profile');
    expect(url.searchParams.get('response_type')).toBe('code');
    expect(url.searchParams.get('redirect_uri')).toBe(`${t.config.PUBLIC_BASE_URL}/auth/oauth/google/callback`);

    expect(callback.status).toBe(302);
    expect(callback.headers.location).toBe(DASHBOARD);
    const user = await me(t, callback.headers);
    expect(user).toMatchObject({ id: signup.body.id, email: 'ada@example.com', name: 'Ada', emailVerified: true });
    const links = await t.app.get(Database).rows(`SELECT provider, provider_user_id FROM ${t.config.DATABASE_SCHEMA}.oauth_accounts WHERE user_id = $1`, [user.id]);
    expect(links).toEqual([{ provider: 'google', provider_user_id: 'google-ada' }]);
    // The password still works.
    await t.http.post('/auth/login').send({ email: 'ada@example.com', password: 'long enough pw' }).expect(200);
  });

  it('Google: creates a new user', async () => {
    fake.addGoogleUser({ sub: 'google-new', email: 'fresh@gmail.example', name: 'Fresh' });
    const { callback } = await oauthLogin(t, 'google', 'google-new');
    expect(callback.status).toBe(302);
    expect(await me(t, callback.headers)).toMatchObject({ email: 'fresh@gmail.example', name: 'Fresh', emailVerified: true });
  });

  it('a linked account still finds its user after the email changed at the provider', async () => {
    const gh = fake.addGithubUser({ login: 'mover', emails: [{ email: 'old@mover.example', primary: true, verified: true }] });
    const first = await oauthLogin(t, 'github', 'mover');
    const user = await me(t, first.callback.headers);
    gh.emails = [{ email: 'new@mover.example', primary: true, verified: true }];
    const second = await oauthLogin(t, 'github', 'mover');
    expect(second.callback.status).toBe(302);
    expect(await me(t, second.callback.headers)).toMatchObject({ id: user.id, email: 'old@mover.example' });
    await expect(userCount(t, 'new@mover.example')).resolves.toBe(0);

    const g = fake.addGoogleUser({ sub: 'google-mover', email: 'g-old@mover.example' });
    const gFirst = await me(t, (await oauthLogin(t, 'google', 'google-mover')).callback.headers);
    g.email = 'g-new@mover.example';
    expect((await me(t, (await oauthLogin(t, 'google', 'google-mover')).callback.headers)).id).toBe(gFirst.id);
  });

  it('refuses a reused, expired, forged or foreign state with 400 INVALID_OAUTH_STATE', async () => {
    fake.addGithubUser({ login: 'stately' });
    const done = await oauthLogin(t, 'github', 'stately');
    expect(done.callback.status).toBe(302);
    // Replay of the same callback (same browser cookie): the state was spent.
    const replay = await t.http.get(done.authorized.path).set('Cookie', done.cookie).expect(400);
    expect(replay.body).toMatchObject({ success: false, error: { code: 'INVALID_OAUTH_STATE', statusCode: 400 } });
    expect(replay.body.error.requestId).toEqual(expect.any(String));

    // Callback without the browser's state cookie (login CSRF): refused, and the state stays usable for its browser.
    const start = await t.http.get('/auth/oauth/github').expect(302);
    const authorized = await fake.authorize(start.headers.location as string, 'stately');
    expect((await t.http.get(authorized.path).expect(400)).body.error.code).toBe('INVALID_OAUTH_STATE');
    const other = stateCookie((await t.http.get('/auth/oauth/github').expect(302)).headers);
    expect((await t.http.get(authorized.path).set('Cookie', other).expect(400)).body.error.code).toBe('INVALID_OAUTH_STATE');
    // State for another provider.
    const googlePath = authorized.path.replace('/github/', '/google/');
    expect((await t.http.get(googlePath).set('Cookie', stateCookie(start.headers)).expect(400)).body.error.code).toBe('INVALID_OAUTH_STATE');
    await t.http.get(authorized.path).set('Cookie', stateCookie(start.headers)).expect(302);

    // Expired.
    const late = await t.http.get('/auth/oauth/github').expect(302);
    const lateAuth = await fake.authorize(late.headers.location as string, 'stately');
    await t.app.get(Database).affected(`UPDATE ${t.config.DATABASE_SCHEMA}.oauth_states SET expires_at = now() - interval '1 second'`);
    expect((await t.http.get(lateAuth.path).set('Cookie', stateCookie(late.headers)).expect(400)).body.error.code).toBe('INVALID_OAUTH_STATE');
    // Missing.
    expect((await t.http.get('/auth/oauth/github/callback?code=abc').expect(400)).body.error.code).toBe('INVALID_OAUTH_STATE');
  });

  it('refuses an unverified email with 403 and creates nobody', async () => {
    fake.addGithubUser({ login: 'unverified', emails: [{ email: 'unverified@gh.example', primary: true, verified: false }, { email: 'other@gh.example', primary: false, verified: true }] });
    const gh = await oauthLogin(t, 'github', 'unverified');
    expect(gh.callback.status).toBe(403);
    expect(gh.callback.body).toMatchObject({ success: false, error: { code: 'OAUTH_EMAIL_UNVERIFIED', statusCode: 403 } });
    expect(gh.callback.headers['set-cookie']?.toString() ?? '').not.toMatch(/email_session=[^;]/);
    await expect(userCount(t, 'unverified@gh.example')).resolves.toBe(0);
    await expect(userCount(t, 'other@gh.example')).resolves.toBe(0);

    fake.addGoogleUser({ sub: 'google-unverified', email: 'unverified@g.example', email_verified: false });
    const g = await oauthLogin(t, 'google', 'google-unverified');
    expect(g.callback.status).toBe(403);
    expect(g.callback.body.error.code).toBe('OAUTH_EMAIL_UNVERIFIED');
    await expect(userCount(t, 'unverified@g.example')).resolves.toBe(0);
  });

  it('answers 502 OAUTH_PROVIDER_ERROR when the provider fails, 403 when the user cancels', async () => {
    fake.addGithubUser({ login: 'flaky', emails: [{ email: 'flaky@gh.example', primary: true, verified: true }] });
    fake.fail({ path: '/github/login/oauth/access_token', status: 500 });
    const token = await oauthLogin(t, 'github', 'flaky');
    expect(token.callback.status).toBe(502);
    expect(token.callback.body).toMatchObject({ success: false, error: { code: 'OAUTH_PROVIDER_ERROR', statusCode: 502 } });

    fake.fail({ path: '/github-api/user/emails', status: 503 });
    expect((await oauthLogin(t, 'github', 'flaky')).callback.status).toBe(502);

    fake.fail({ path: '/google/userinfo', mode: 'reset' });
    fake.addGoogleUser({ sub: 'google-flaky', email: 'flaky@g.example' });
    const reset = await oauthLogin(t, 'google', 'google-flaky');
    expect(reset.callback.status).toBe(502);
    expect(reset.callback.body.error.code).toBe('OAUTH_PROVIDER_ERROR');
    await expect(userCount(t, 'flaky@gh.example')).resolves.toBe(0);

    // A code the provider refuses (GitHub answers 200 {error}) is a provider error too.
    const start = await t.http.get('/auth/oauth/github').expect(302);
    const state = new URL(start.headers.location as string).searchParams.get('state')!;
    const forged = await t.http.get(`/auth/oauth/github/callback?code=not-a-code&state=${state}`).set('Cookie', stateCookie(start.headers)).expect(502);
    expect(forged.body.error.message).toContain('bad_verification_code');

    const cancelStart = await t.http.get('/auth/oauth/github').expect(302);
    const cancelled = await fake.authorize(cancelStart.headers.location as string, 'flaky', { deny: true });
    expect(cancelled.error).toBe('access_denied');
    expect((await t.http.get(cancelled.path).set('Cookie', stateCookie(cancelStart.headers)).expect(403)).body.error.code).toBe('OAUTH_ACCESS_DENIED');
  });

  it('documents both routes in Swagger with their error answers', async () => {
    const doc = (await t.http.get('/api/docs-json').expect(200)).body;
    const start = doc.paths['/auth/oauth/{provider}'].get;
    const callback = doc.paths['/auth/oauth/{provider}/callback'].get;
    expect(Object.keys(start.responses).sort()).toEqual(['302', '404', '422', '500']);
    expect(Object.keys(callback.responses).sort()).toEqual(['302', '400', '403', '404', '422', '500', '502']);
    expect(callback.responses['403'].description).toContain('`OAUTH_EMAIL_UNVERIFIED`');
    expect(callback.responses['302'].headers.Location).toBeDefined();
    expect(start.parameters.find((p: { name: string }) => p.name === 'provider').schema.enum).toEqual(['github', 'google']);
  });

  it('honours DISABLE_SIGNUPS: no new users, existing ones log in', async () => {
    fake.addGithubUser({ login: 'stranger', emails: [{ email: 'stranger@gh.example', primary: true, verified: true }] });
    const refused = await oauthLogin(closed, 'github', 'stranger');
    expect(refused.callback.status).toBe(403);
    expect(refused.callback.body.error.code).toBe('SIGNUPS_DISABLED');
    await expect(userCount(closed, 'stranger@gh.example')).resolves.toBe(0);

    const existing = await closed.app.get(UsersRepository).insert('member@gh.example', 'Member', await hashPassword('long enough pw'));
    fake.addGithubUser({ login: 'member', emails: [{ email: 'member@gh.example', primary: true, verified: true }] });
    const ok = await oauthLogin(closed, 'github', 'member');
    expect(ok.callback.status).toBe(302);
    expect(ok.callback.headers.location).toBe(closed.config.PUBLIC_BASE_URL);
    expect((await me(closed, ok.callback.headers)).id).toBe(existing!.id);
  });
});
