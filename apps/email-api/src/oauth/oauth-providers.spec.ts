import { loadConfig } from '@platform/platform';
import { EmailApiConfig } from '../config';
import { authorizeUrl, callbackUrl, configuredProviders, githubProfile, googleProfile, newAuthorization, pkceChallenge } from './oauth-providers';

const config = (env: Record<string, string>) => loadConfig(EmailApiConfig, env, { PORT: 3002, REDIS_KEY_PREFIX: 'email-api:' });

describe('OAuth providers', () => {
  it('configures exactly the providers with a client id and secret, on the real endpoints by default', () => {
    expect(configuredProviders(config({}))).toEqual([]);
    const both = configuredProviders(config({ GITHUB_CLIENT_ID: 'gh', GITHUB_CLIENT_SECRET: 'ghs', GOOGLE_CLIENT_ID: 'go', GOOGLE_CLIENT_SECRET: 'gos' }));
    expect(both.map((p) => [p.name, p.authorizeUrl, p.tokenUrl, p.profileUrl, p.scope])).toEqual([
      ['github', 'https://github.com/login/oauth/authorize', 'https://github.com/login/oauth/access_token', 'https://api.github.com/user', 'read:user user:email'],
      ['google', 'https://accounts.google.com/o/oauth2/v2/auth', 'https://oauth2.googleapis.com/token', 'https://openidconnect.googleapis.com/v1/userinfo', 'openid email profile'],
    ]);
    const google = configuredProviders(config({ GOOGLE_CLIENT_ID: 'go', GOOGLE_CLIENT_SECRET: 'gos', GOOGLE_OAUTH_URL: 'http://127.0.0.1:9/google/' }));
    expect(google.map((p) => [p.name, p.authorizeUrl])).toEqual([['google', 'http://127.0.0.1:9/google/o/oauth2/v2/auth']]);
  });

  it('wants both the client id and the secret, and URLs', () => {
    expect(() => config({ GITHUB_CLIENT_ID: 'gh' })).toThrow(/GITHUB_CLIENT_SECRET/);
    expect(() => config({ GOOGLE_CLIENT_SECRET: 'x' })).toThrow(/GOOGLE_CLIENT_ID/);
    expect(() => config({ GITHUB_API_URL: 'api.github.com', DASHBOARD_URL: 'nope' })).toThrow(/GITHUB_API_URL[\s\S]*DASHBOARD_URL|DASHBOARD_URL[\s\S]*GITHUB_API_URL/);
  });

  it('computes the PKCE S256 challenge (RFC 7636 appendix B) and fresh random states', () => {
    expect(pkceChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    const a = newAuthorization();
    const b = newAuthorization();
    expect(a.codeVerifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a.codeChallenge).toBe(pkceChallenge(a.codeVerifier));
    expect(a.state).not.toBe(b.state);
  });

  it('builds the authorize URL with every parameter', () => {
    const [github] = configuredProviders(config({ GITHUB_CLIENT_ID: 'gh id', GITHUB_CLIENT_SECRET: 'ghs' }));
    const redirect = callbackUrl('https://api.example.com/email/', 'github');
    expect(redirect).toBe('https://api.example.com/email/auth/oauth/github/callback');
    const url = new URL(authorizeUrl(github, redirect, 'st&te', 'challenge'));
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: 'gh id',
      redirect_uri: redirect,
      response_type: 'code',
      scope: 'read:user user:email',
      state: 'st&te',
      code_challenge: 'challenge',
      code_challenge_method: 'S256',
      allow_signup: 'true',
    });
  });

  it('takes the primary GitHub address only when verified', () => {
    const user = { id: 42, login: 'octo', name: null, email: 'public@x.example' };
    expect(githubProfile(user, [{ email: 'a@x.example', primary: false, verified: true }, { email: 'P@X.example', primary: true, verified: true }])).toEqual({
      providerUserId: '42',
      email: 'p@x.example',
      emailVerified: true,
      name: 'octo',
    });
    expect(githubProfile(user, [{ email: 'p@x.example', primary: true, verified: false }])).toMatchObject({ email: 'p@x.example', emailVerified: false });
    expect(githubProfile(user, [])).toMatchObject({ email: null, emailVerified: false });
    expect(githubProfile({ login: 'no id' }, [])).toBeNull();
    expect(githubProfile(user, { message: 'nope' })).toBeNull();
  });

  it('trusts Google userinfo emails only with email_verified', () => {
    expect(googleProfile({ sub: '1', email: 'A@g.example', email_verified: true, name: 'A' })).toEqual({ providerUserId: '1', email: 'a@g.example', emailVerified: true, name: 'A' });
    expect(googleProfile({ sub: '1', email: 'a@g.example', email_verified: false })).toMatchObject({ emailVerified: false });
    expect(googleProfile({ sub: '1', email: 'a@g.example' })).toMatchObject({ emailVerified: false });
    expect(googleProfile({ email: 'a@g.example', email_verified: true })).toBeNull();
  });
});
