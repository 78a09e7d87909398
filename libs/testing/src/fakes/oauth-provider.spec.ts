import { createHash } from 'node:crypto';
import { request } from 'undici';
import { startFakeOAuthProvider, type FakeOAuthProvider } from './oauth-provider';

describe('fake OAuth provider', () => {
  let fake: FakeOAuthProvider;
  beforeEach(async () => {
    fake = await startFakeOAuthProvider();
  });
  afterEach(() => fake.close());

  const verifier = 'v'.repeat(43);
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const redirect = 'http://app.example/cb';

  async function post(path: string, form: Record<string, string>) {
    const res = await request(`${fake.origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body: new URLSearchParams(form).toString() });
    return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
  }

  function authorizeUrl(provider: 'github' | 'google') {
    const base = provider === 'github' ? fake.env.GITHUB_OAUTH_URL + '/login/oauth/authorize' : fake.env.GOOGLE_OAUTH_URL + '/o/oauth2/v2/auth';
    const url = new URL(base);
    const params = { client_id: fake.clients[provider].id, redirect_uri: redirect, response_type: 'code', scope: 's', state: 'st', code_challenge: challenge, code_challenge_method: 'S256' };
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return url.toString();
  }

  it('GitHub: code for the consenting user, PKCE checked, code single use, /user and /user/emails', async () => {
    const user = fake.addGithubUser({ login: 'octo', emails: [{ email: 'o@x.example', primary: true, verified: true }] });
    const auth = await fake.authorize(authorizeUrl('github'), 'octo');
    expect(auth).toMatchObject({ state: 'st', error: null, path: expect.stringMatching(/^\/cb\?/) });
    const form = { client_id: fake.clients.github.id, client_secret: fake.clients.github.secret, code: auth.code!, redirect_uri: redirect };
    expect((await post('/github/login/oauth/access_token', { ...form, code_verifier: 'w'.repeat(43) })).body.error).toBe('invalid_grant');

    const again = await fake.authorize(authorizeUrl('github'), 'octo');
    const ok = await post('/github/login/oauth/access_token', { ...form, code: again.code!, code_verifier: verifier });
    expect(ok).toMatchObject({ status: 200, body: { token_type: 'bearer', access_token: expect.stringMatching(/^gho_/) } });
    expect((await post('/github/login/oauth/access_token', { ...form, code: again.code!, code_verifier: verifier })).body.error).toBe('bad_verification_code');

    const headers = { authorization: `Bearer ${ok.body.access_token as string}` };
    expect(await (await request(`${fake.env.GITHUB_API_URL}/user`, { headers })).body.json()).toMatchObject({ id: user.id, login: 'octo' });
    expect(await (await request(`${fake.env.GITHUB_API_URL}/user/emails`, { headers })).body.json()).toEqual([{ email: 'o@x.example', primary: true, verified: true, visibility: 'private' }]);
    expect((await request(`${fake.env.GITHUB_API_URL}/user`, { headers: { authorization: 'Bearer nope' } })).statusCode).toBe(401);
  });

  it('Google: wrong client 401, token and userinfo; deny redirects with access_denied', async () => {
    const user = fake.addGoogleUser({ email: 'g@x.example', email_verified: false });
    const auth = await fake.authorize(authorizeUrl('google'), user.sub);
    const form = { grant_type: 'authorization_code', client_id: fake.clients.google.id, client_secret: 'wrong', code: auth.code!, redirect_uri: redirect, code_verifier: verifier };
    expect(await post('/google/token', form)).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    const ok = await post('/google/token', { ...form, client_secret: fake.clients.google.secret });
    expect(ok).toMatchObject({ status: 200, body: { token_type: 'Bearer' } });
    const info = await request(fake.env.GOOGLE_USERINFO_URL, { headers: { authorization: `Bearer ${ok.body.access_token as string}` } });
    expect(await info.body.json()).toMatchObject({ sub: user.sub, email: 'g@x.example', email_verified: false });
    expect(await fake.authorize(authorizeUrl('google'), user.sub, { deny: true })).toMatchObject({ code: null, error: 'access_denied', state: 'st' });
  });
});
