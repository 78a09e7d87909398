import { Injectable } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { request } from 'undici';
import { EmailApiConfig } from '../config';
import { githubProfile, googleProfile, type OAuthProfile, type OAuthProvider } from './oauth-providers';

const USER_AGENT = 'email-api-oauth';

export const providerError = (provider: string, detail: string) =>
  new ApiError(502, 'OAUTH_PROVIDER_ERROR', `The ${provider} login failed at the provider: ${detail}`, {
    suggestion: 'Start the login again; if it keeps failing the provider may be down or the OAuth app misconfigured.',
  });

/** The provider side of the authorization code flow, over undici with a time limit per call. */
@Injectable()
export class OAuthClient {
  constructor(private readonly config: EmailApiConfig) {}

  /** Exchanges the code (with the PKCE verifier) for an access token. */
  async exchangeCode(provider: OAuthProvider, code: string, redirectUri: string, codeVerifier: string): Promise<string> {
    const form = new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: provider.clientId,
      client_secret: provider.clientSecret,
      code_verifier: codeVerifier,
    });
    const { status, body } = await this.call(provider.name, provider.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
    });
    // GitHub answers 200 with {error} for a refused code; Google answers 400 with {error}.
    const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    if (status >= 400 || typeof record.error === 'string' || typeof record.access_token !== 'string' || record.access_token === '') {
      const reason = typeof record.error === 'string' ? `${record.error}${typeof record.error_description === 'string' ? ` (${record.error_description})` : ''}` : `token endpoint answered ${status}`;
      throw providerError(provider.name, reason);
    }
    return record.access_token;
  }

  async profile(provider: OAuthProvider, accessToken: string): Promise<OAuthProfile> {
    const auth = { authorization: `Bearer ${accessToken}` };
    if (provider.name === 'github') {
      const headers = { ...auth, accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' };
      const [user, emails] = await Promise.all([this.get(provider.name, provider.profileUrl, headers), this.get(provider.name, provider.emailsUrl!, headers)]);
      const profile = githubProfile(user, emails);
      if (!profile) throw providerError(provider.name, 'unexpected /user or /user/emails answer');
      return profile;
    }
    const profile = googleProfile(await this.get(provider.name, provider.profileUrl, { ...auth, accept: 'application/json' }));
    if (!profile) throw providerError(provider.name, 'unexpected userinfo answer');
    return profile;
  }

  private async get(provider: string, url: string, headers: Record<string, string>): Promise<unknown> {
    const { status, body } = await this.call(provider, url, { method: 'GET', headers });
    if (status !== 200) throw providerError(provider, `${new URL(url).pathname} answered ${status}`);
    return body;
  }

  private async call(provider: string, url: string, init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string }): Promise<{ status: number; body: unknown }> {
    let res;
    try {
      res = await request(url, {
        method: init.method,
        headers: { 'user-agent': USER_AGENT, ...init.headers },
        body: init.body,
        headersTimeout: this.config.OAUTH_TIMEOUT_MS,
        bodyTimeout: this.config.OAUTH_TIMEOUT_MS,
        signal: AbortSignal.timeout(this.config.OAUTH_TIMEOUT_MS),
      });
    } catch (err) {
      throw providerError(provider, `could not reach ${new URL(url).host} (${(err as Error).message})`);
    }
    let raw: string;
    try {
      raw = await res.body.text();
    } catch (err) {
      throw providerError(provider, `the answer broke off (${(err as Error).message})`);
    }
    try {
      return { status: res.statusCode, body: JSON.parse(raw) as unknown };
    } catch {
      if (res.statusCode >= 400) return { status: res.statusCode, body: null };
      throw providerError(provider, `${new URL(url).pathname} answered something other than JSON`);
    }
  }
}
