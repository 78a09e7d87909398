import { Injectable } from '@nestjs/common';
import { hashApiKey, safeEqual } from '@platform/auth';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { AccountsService } from '../access/accounts.service';
import type { User } from '../access/user';
import { EmailApiConfig } from '../config';
import { OAuthClient, providerError } from './oauth-client';
import { authorizeUrl, callbackUrl, configuredProviders, newAuthorization, type OAuthProfile, type OAuthProvider, type OAuthProviderName } from './oauth-providers';
import { OAuthRepository } from './oauth.repository';

/** How long a started login may take at the provider before its state expires. */
export const OAUTH_STATE_TTL_SECONDS = 10 * 60;

export interface OAuthCallbackQuery {
  code?: unknown;
  state?: unknown;
  error?: unknown;
  error_description?: unknown;
}

const invalidState = () =>
  new ApiError(400, 'INVALID_OAUTH_STATE', 'The login request is invalid, expired or already used', {
    suggestion: 'Start the login again from GET /auth/oauth/{provider} in the same browser and finish it within 10 minutes.',
  });

/**
 * OAuth 2.0 login (authorization code flow with PKCE and `state`) for GitHub and Google: the state
 * and the PKCE verifier stay server-side (hashed state, 10 minutes, single use) and the state is
 * also bound to the browser by a short-lived cookie (no login CSRF). The callback logs in the user
 * linked to the provider account, else the user with the provider's verified email (and links
 * them), else creates one unless DISABLE_SIGNUPS.
 */
@Injectable()
export class OAuthService {
  private readonly providers: Map<OAuthProviderName, OAuthProvider>;

  constructor(
    private readonly config: EmailApiConfig,
    private readonly transactions: Transactions,
    private readonly users: AccountsService,
    private readonly repo: OAuthRepository,
    private readonly client: OAuthClient,
  ) {
    this.providers = new Map(configuredProviders(config).map((p) => [p.name, p]));
  }

  /** Names of the configured providers. */
  providerNames(): OAuthProviderName[] {
    return [...this.providers.keys()];
  }

  /** A new pending authorization: the provider URL to redirect to and the state for the browser cookie. */
  async start(name: string): Promise<{ url: string; state: string }> {
    const provider = this.provider(name);
    const { state, codeVerifier, codeChallenge } = newAuthorization();
    await this.repo.insertState(hashApiKey(state), provider.name, codeVerifier, OAUTH_STATE_TTL_SECONDS);
    return { url: authorizeUrl(provider, callbackUrl(this.config.PUBLIC_BASE_URL, provider.name), state, codeChallenge), state };
  }

  /** Finishes the login at the callback: checks and spends the state, exchanges the code, finds or creates the user. */
  async finish(name: string, query: OAuthCallbackQuery, browserState: string | undefined): Promise<User> {
    const provider = this.provider(name);
    const state = typeof query.state === 'string' && query.state.length >= 20 && query.state.length <= 200 ? query.state : null;
    if (!state || !browserState || !safeEqual(state, browserState)) throw invalidState();
    const codeVerifier = await this.repo.consumeState(hashApiKey(state), provider.name);
    if (!codeVerifier) throw invalidState();
    if (typeof query.error === 'string') {
      if (query.error === 'access_denied') {
        throw new ApiError(403, 'OAUTH_ACCESS_DENIED', `The ${provider.name} login was cancelled at the provider`, { suggestion: 'Start the login again and allow access.' });
      }
      throw providerError(provider.name, typeof query.error_description === 'string' ? `${query.error} (${query.error_description})` : query.error);
    }
    if (typeof query.code !== 'string' || query.code === '' || query.code.length > 2000) {
      throw new ApiError(400, 'INVALID_OAUTH_CODE', 'The callback carries no authorization code', { suggestion: 'Start the login again from GET /auth/oauth/{provider}.' });
    }
    const accessToken = await this.client.exchangeCode(provider, query.code, callbackUrl(this.config.PUBLIC_BASE_URL, provider.name), codeVerifier);
    const profile = await this.client.profile(provider, accessToken);
    return this.loginOrCreate(provider.name, profile);
  }

  private async loginOrCreate(provider: OAuthProviderName, profile: OAuthProfile): Promise<User> {
    const verifiedEmail = profile.emailVerified ? profile.email : null;
    return this.transactions.transaction(async () => {
      // A linked account is found by the provider's id, whatever its email is today.
      const linkedUserId = await this.repo.touchAccount(provider, profile.providerUserId, verifiedEmail);
      if (linkedUserId) {
        const linked = await this.users.findById(linkedUserId);
        if (linked) return linked;
      }
      if (!verifiedEmail) {
        throw new ApiError(403, 'OAUTH_EMAIL_UNVERIFIED', `The ${provider} account has no verified primary email address`, {
          suggestion: `Verify the primary email address at ${provider}, then log in again.`,
        });
      }
      let user = await this.users.findByEmail(verifiedEmail);
      if (user) {
        // The provider proved the address.
        await this.users.markVerified(user.id);
      } else {
        if (this.config.DISABLE_SIGNUPS) {
          throw new ApiError(403, 'SIGNUPS_DISABLED', 'Signups are disabled on this server and no account has this email', {
            suggestion: 'Ask an administrator for an account, then log in with the same email.',
          });
        }
        user = (await this.users.create(verifiedEmail, profile.name, null, true)) ?? (await this.users.findByEmail(verifiedEmail));
        if (!user) throw new Error('user vanished while being created');
      }
      await this.repo.link(provider, profile.providerUserId, user.id, verifiedEmail);
      return (await this.users.findById(user.id)) ?? user;
    });
  }

  private provider(name: string): OAuthProvider {
    const provider = this.providers.get(name as OAuthProviderName);
    if (!provider) {
      throw new ApiError(404, 'OAUTH_PROVIDER_NOT_FOUND', `No OAuth login "${name}" is configured on this server`, {
        suggestion: `GET /auth/oauth-config lists the available providers (${this.providerNames().join(', ') || 'none'}).`,
      });
    }
    return provider;
  }
}
