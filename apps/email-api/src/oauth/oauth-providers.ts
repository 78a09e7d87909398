import { createHash, randomBytes } from 'node:crypto';
import type { EmailApiConfig } from '../config';

export const OAUTH_PROVIDERS = ['github', 'google'] as const;
export type OAuthProviderName = (typeof OAUTH_PROVIDERS)[number];

/** Endpoints, client and scope of one configured provider. */
export interface OAuthProvider {
  name: OAuthProviderName;
  clientId: string;
  clientSecret: string;
  authorizeUrl: string;
  tokenUrl: string;
  scope: string;
  /** GitHub: `${api}/user` and `/user/emails`; Google: the userinfo endpoint. */
  profileUrl: string;
  emailsUrl?: string;
}

/** The profile the callback works with: a stable provider id and the verified address, or why there is none. */
export interface OAuthProfile {
  providerUserId: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** The providers whose client id and secret are set, in a fixed order. */
export function configuredProviders(config: EmailApiConfig): OAuthProvider[] {
  const providers: OAuthProvider[] = [];
  if (config.GITHUB_CLIENT_ID && config.GITHUB_CLIENT_SECRET) {
    const web = trimSlash(config.GITHUB_OAUTH_URL);
    const api = trimSlash(config.GITHUB_API_URL);
    providers.push({
      name: 'github',
      clientId: config.GITHUB_CLIENT_ID,
      clientSecret: config.GITHUB_CLIENT_SECRET,
      authorizeUrl: `${web}/login/oauth/authorize`,
      tokenUrl: `${web}/login/oauth/access_token`,
      scope: 'read:user user:email',
      profileUrl: `${api}/user`,
      emailsUrl: `${api}/user/emails`,
    });
  }
  if (config.GOOGLE_CLIENT_ID && config.GOOGLE_CLIENT_SECRET) {
    providers.push({
      name: 'google',
      clientId: config.GOOGLE_CLIENT_ID,
      clientSecret: config.GOOGLE_CLIENT_SECRET,
      authorizeUrl: `${trimSlash(config.GOOGLE_OAUTH_URL)}/o/oauth2/v2/auth`,
      tokenUrl: config.GOOGLE_TOKEN_URL,
      scope: 'openid email profile',
      profileUrl: config.GOOGLE_USERINFO_URL,
    });
  }
  return providers;
}

/** `${PUBLIC_BASE_URL}/auth/oauth/<provider>/callback`: registered at the provider, sent on authorize and on the token exchange. */
export function callbackUrl(publicBaseUrl: string, provider: OAuthProviderName): string {
  return `${trimSlash(publicBaseUrl)}/auth/oauth/${provider}/callback`;
}

/** A random `state` and PKCE verifier (RFC 7636: 43 characters of base64url) with its S256 challenge. */
export function newAuthorization(): { state: string; codeVerifier: string; codeChallenge: string } {
  const codeVerifier = randomBytes(32).toString('base64url');
  return { state: randomBytes(32).toString('base64url'), codeVerifier, codeChallenge: pkceChallenge(codeVerifier) };
}

export function pkceChallenge(codeVerifier: string): string {
  return createHash('sha256').update(codeVerifier).digest('base64url');
}

export function authorizeUrl(provider: OAuthProvider, redirectUri: string, state: string, codeChallenge: string): string {
  const url = new URL(provider.authorizeUrl);
  url.searchParams.set('client_id', provider.clientId);
  url.searchParams.set('redirect_uri', redirectUri);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', provider.scope);
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', codeChallenge);
  url.searchParams.set('code_challenge_method', 'S256');
  if (provider.name === 'github') url.searchParams.set('allow_signup', 'true');
  return url.toString();
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

/**
 * GitHub's `/user` and `/user/emails` answers: the account id and the primary address when GitHub
 * marks it verified (the public `email` of `/user` is not proof of anything). Null: unusable answer.
 */
export function githubProfile(user: unknown, emails: unknown): OAuthProfile | null {
  if (!isRecord(user) || (typeof user.id !== 'number' && typeof user.id !== 'string') || !Array.isArray(emails)) return null;
  const primary = emails.find((e) => isRecord(e) && e.primary === true && typeof e.email === 'string');
  const email = isRecord(primary) ? text(primary.email) : null;
  return {
    providerUserId: String(user.id),
    email: email?.toLowerCase() ?? null,
    emailVerified: email !== null && isRecord(primary) && primary.verified === true,
    name: text(user.name) ?? text(user.login),
  };
}

/** Google's OpenID Connect userinfo: `sub`, and `email` only when `email_verified` is true. */
export function googleProfile(info: unknown): OAuthProfile | null {
  if (!isRecord(info) || !text(info.sub)) return null;
  const email = text(info.email);
  return {
    providerUserId: text(info.sub)!,
    email: email?.toLowerCase() ?? null,
    emailVerified: email !== null && (info.email_verified === true || info.email_verified === 'true'),
    name: text(info.name),
  };
}
