import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';

/**
 * A fake OAuth 2.0 provider for tests, speaking both GitHub's and Google's authorization code flow
 * (with PKCE) in their real shapes: node:http on 127.0.0.1, port 0, in-memory state.
 *
 * - GitHub web  `${origin}/github`: `GET /login/oauth/authorize`, `POST /login/oauth/access_token`
 *   (errors answered 200 `{error, error_description}`, like GitHub)
 * - GitHub API  `${origin}/github-api`: `GET /user`, `GET /user/emails`
 * - Google      `${origin}/google`: `GET /o/oauth2/v2/auth`, `POST /token` (errors 400/401 `{error}`),
 *   `GET /userinfo`
 *
 * The authorize endpoints do not render a consent page: the fake-only query parameter `login`
 * (a GitHub login or a Google `sub`) says which user consents, `deny=1` cancels. They answer 302 to
 * `redirect_uri?code=…&state=…` (or `error=access_denied`). Codes live 10 minutes and work once;
 * the token endpoints check the client, the redirect URI and the PKCE verifier. `env` holds the
 * variables that point a service at the fake.
 */

export interface FakeGithubEmail {
  email: string;
  primary: boolean;
  verified: boolean;
  visibility?: 'public' | 'private' | null;
}

export interface FakeGithubUser {
  id: number;
  login: string;
  name: string | null;
  /** The public profile email of `/user` (proves nothing; may differ from the primary address). */
  email: string | null;
  emails: FakeGithubEmail[];
}

export interface FakeGoogleUser {
  sub: string;
  email: string;
  email_verified: boolean;
  name?: string;
}

export type FakeOAuthProviderName = 'github' | 'google';

export interface FakeOAuthClient {
  id: string;
  secret: string;
}

export interface RecordedOAuthRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed form (or JSON) body of POSTs. */
  body: Record<string, string>;
}

export interface OAuthFailure {
  /** Matches the request path (string: substring; RegExp: test). */
  path: string | RegExp;
  /** How many requests fail; default 1. */
  times?: number;
  /** `error` (default) answers `status` with a JSON error; `reset` destroys the socket. */
  mode?: 'error' | 'reset';
  status?: number;
}

export interface FakeOAuthGrant {
  provider: FakeOAuthProviderName;
  code: string;
  clientId: string;
  redirectUri: string;
  scope: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
  user: string;
  expiresAt: number;
  used: boolean;
}

export interface FakeOAuthAuthorizeResult {
  /** The Location the fake redirected to (the service's callback with `code` and `state`, or `error`). */
  location: string;
  /** `pathname + search` of the Location, ready for supertest. */
  path: string;
  code: string | null;
  state: string | null;
  error: string | null;
}

export interface FakeOAuthProviderOptions {
  github?: FakeOAuthClient;
  google?: FakeOAuthClient;
}

export interface FakeOAuthProvider {
  origin: string;
  clients: Record<FakeOAuthProviderName, FakeOAuthClient>;
  /** The GITHUB_… and GOOGLE_… client and endpoint variables pointing at this fake. */
  env: Record<string, string>;
  github: Map<string, FakeGithubUser>;
  google: Map<string, FakeGoogleUser>;
  grants: Map<string, FakeOAuthGrant>;
  requests: RecordedOAuthRequest[];
  /** Adds (or replaces) a GitHub user, keyed by login; the returned object is live (mutate it to change the user). */
  addGithubUser(user: Partial<FakeGithubUser> & { login: string }): FakeGithubUser;
  /** Adds (or replaces) a Google user, keyed by `sub`; live like addGithubUser. */
  addGoogleUser(user: Partial<FakeGoogleUser> & { email: string }): FakeGoogleUser;
  /**
   * Follows the service's redirect: calls the fake's authorize endpoint at `authorizeUrl` as the
   * user `login` (a GitHub login or a Google sub) and returns where it redirects.
   */
  authorize(authorizeUrl: string, login: string, opts?: { deny?: boolean }): Promise<FakeOAuthAuthorizeResult>;
  fail(failure: OAuthFailure): void;
  requestsTo(path: string | RegExp, method?: string): RecordedOAuthRequest[];
  close(): Promise<void>;
}

const CODE_TTL_MS = 10 * 60 * 1000;

class OAuthHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(String(body.error ?? body.message ?? status));
  }
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<Record<string, string>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  if (!raw) return {};
  if (String(req.headers['content-type'] ?? '').includes('application/json')) {
    const parsed = JSON.parse(raw) as Record<string, unknown>;
    return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)]));
  }
  return Object.fromEntries(new URLSearchParams(raw));
}

function bearer(req: IncomingMessage): string | undefined {
  return /^(?:Bearer|token)\s+(\S+)$/i.exec(String(req.headers.authorization ?? ''))?.[1];
}

/** HTTP Basic client credentials (Google accepts them instead of body fields). */
function basicClient(req: IncomingMessage): { id: string; secret: string } | undefined {
  const m = /^Basic\s+(\S+)$/i.exec(String(req.headers.authorization ?? ''));
  if (!m) return undefined;
  const [id, secret] = Buffer.from(m[1], 'base64').toString('utf8').split(':');
  return { id: decodeURIComponent(id ?? ''), secret: decodeURIComponent(secret ?? '') };
}

export async function startFakeOAuthProvider(options: FakeOAuthProviderOptions = {}): Promise<FakeOAuthProvider> {
  const clients: Record<FakeOAuthProviderName, FakeOAuthClient> = {
    github: options.github ?? { id: 'fake-github-client', secret: 'fake-github-secret' },
    google: options.google ?? { id: 'fake-google-client.apps.googleusercontent.com', secret: 'fake-google-secret' },
  };
  const github = new Map<string, FakeGithubUser>();
  const google = new Map<string, FakeGoogleUser>();
  const grants = new Map<string, FakeOAuthGrant>();
  const tokens = new Map<string, { provider: FakeOAuthProviderName; user: string }>();
  const requests: RecordedOAuthRequest[] = [];
  const failures: Array<OAuthFailure & { remaining: number }> = [];
  let githubIds = 1000;
  let googleIds = 104_000_000_000;

  function authorizeEndpoint(provider: FakeOAuthProviderName, q: Record<string, string>, res: ServerResponse): void {
    if (q.client_id !== clients[provider].id) throw new OAuthHttpError(400, { error: 'invalid_client', error_description: 'The OAuth client was not found.' });
    if (!q.redirect_uri) throw new OAuthHttpError(400, { error: 'invalid_request', error_description: 'Missing required parameter: redirect_uri' });
    if (provider === 'google' && q.response_type !== 'code') throw new OAuthHttpError(400, { error: 'unsupported_response_type' });
    if (q.code_challenge && q.code_challenge_method && !['S256', 'plain'].includes(q.code_challenge_method)) {
      throw new OAuthHttpError(400, { error: 'invalid_request', error_description: 'Invalid code_challenge_method' });
    }
    const target = new URL(q.redirect_uri);
    if (q.state !== undefined) target.searchParams.set('state', q.state);
    const users = provider === 'github' ? github : google;
    if (q.deny === '1' || q.deny === 'true') {
      target.searchParams.set('error', 'access_denied');
      target.searchParams.set('error_description', 'The user has denied your application access.');
    } else {
      if (!q.login || !users.has(q.login)) throw new OAuthHttpError(400, { error: 'unknown_user', error_description: `fake: no ${provider} user "${q.login ?? ''}" (pass ?login=)` });
      const code = randomBytes(16).toString('hex');
      grants.set(code, {
        provider,
        code,
        clientId: q.client_id,
        redirectUri: q.redirect_uri,
        scope: q.scope ?? '',
        codeChallenge: q.code_challenge,
        codeChallengeMethod: q.code_challenge ? (q.code_challenge_method ?? 'plain') : undefined,
        user: q.login,
        expiresAt: Date.now() + CODE_TTL_MS,
        used: false,
      });
      target.searchParams.set('code', code);
    }
    res.writeHead(302, { location: target.toString(), 'content-length': 0 });
    res.end();
  }

  /** The token exchange of either provider; errors in that provider's shape. */
  function tokenEndpoint(provider: FakeOAuthProviderName, req: IncomingMessage, body: Record<string, string>, res: ServerResponse): void {
    const fail = (status: number, error: string, description: string) => {
      if (provider === 'github') send(res, 200, { error, error_description: description, error_uri: 'https://docs.github.com/apps/troubleshooting-oauth-errors' });
      else send(res, status, { error, error_description: description });
    };
    const basic = basicClient(req);
    const clientId = body.client_id ?? basic?.id;
    const clientSecret = body.client_secret ?? basic?.secret;
    if (clientId !== clients[provider].id || clientSecret !== clients[provider].secret) {
      return provider === 'github' ? fail(200, 'incorrect_client_credentials', 'The client_id and/or client_secret passed are incorrect.') : fail(401, 'invalid_client', 'Unauthorized');
    }
    if (provider === 'google' && body.grant_type !== 'authorization_code') return fail(400, 'unsupported_grant_type', 'Invalid grant_type');
    const grant = body.code ? grants.get(body.code) : undefined;
    if (!grant || grant.provider !== provider || grant.used || grant.expiresAt < Date.now() || grant.clientId !== clientId) {
      return provider === 'github' ? fail(200, 'bad_verification_code', 'The code passed is incorrect or expired.') : fail(400, 'invalid_grant', 'Bad Request');
    }
    grant.used = true;
    if (body.redirect_uri !== grant.redirectUri) return fail(400, 'redirect_uri_mismatch', 'The redirect_uri MUST match the registered callback URL for this application.');
    if (grant.codeChallenge) {
      const verifier = body.code_verifier ?? '';
      const computed = grant.codeChallengeMethod === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier;
      if (!verifier || computed !== grant.codeChallenge) return fail(400, 'invalid_grant', 'Invalid code verifier.');
    }
    const accessToken = `${provider === 'github' ? 'gho_' : 'ya29.'}${randomBytes(18).toString('hex')}`;
    tokens.set(accessToken, { provider, user: grant.user });
    if (provider === 'github') {
      send(res, 200, { access_token: accessToken, token_type: 'bearer', scope: grant.scope.split(/\s+/).filter(Boolean).join(',') });
    } else {
      send(res, 200, { access_token: accessToken, expires_in: 3599, scope: grant.scope, token_type: 'Bearer', id_token: `fake.${Buffer.from(grant.user).toString('base64url')}.sig` });
    }
  }

  function tokenUser(provider: FakeOAuthProviderName, req: IncomingMessage): string {
    const token = bearer(req);
    const entry = token ? tokens.get(token) : undefined;
    if (!entry || entry.provider !== provider) {
      throw provider === 'github'
        ? new OAuthHttpError(401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' })
        : new OAuthHttpError(401, { error: 'invalid_request', error_description: 'Invalid Credentials' });
    }
    return entry.user;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const query = Object.fromEntries(url.searchParams);
    const body = req.method === 'POST' ? await readBody(req) : {};
    const path = url.pathname;
    requests.push({ method: req.method ?? 'GET', path, query, headers: req.headers, body });

    const failure = failures.find((f) => f.remaining > 0 && (typeof f.path === 'string' ? path.includes(f.path) : f.path.test(path)));
    if (failure) {
      failure.remaining -= 1;
      if (failure.mode === 'reset') {
        req.socket.destroy();
        return;
      }
      send(res, failure.status ?? 500, { message: 'fake provider failure' });
      return;
    }

    const route = `${req.method} ${path}`;
    switch (route) {
      case 'GET /github/login/oauth/authorize':
        return authorizeEndpoint('github', query, res);
      case 'GET /google/o/oauth2/v2/auth':
        return authorizeEndpoint('google', query, res);
      case 'POST /github/login/oauth/access_token':
        return tokenEndpoint('github', req, body, res);
      case 'POST /google/token':
        return tokenEndpoint('google', req, body, res);
      case 'GET /github-api/user': {
        const u = github.get(tokenUser('github', req))!;
        return send(res, 200, { login: u.login, id: u.id, node_id: `U_${u.id}`, type: 'User', name: u.name, email: u.email, avatar_url: `https://avatars.example.com/u/${u.id}` });
      }
      case 'GET /github-api/user/emails': {
        const u = github.get(tokenUser('github', req))!;
        return send(res, 200, u.emails.map((e) => ({ email: e.email, primary: e.primary, verified: e.verified, visibility: e.visibility ?? (e.primary ? 'private' : null) })));
      }
      case 'GET /google/userinfo': {
        const u = google.get(tokenUser('google', req))!;
        return send(res, 200, { sub: u.sub, name: u.name, email: u.email, email_verified: u.email_verified, picture: `https://lh3.example.com/${u.sub}` });
      }
      default:
        send(res, 404, { message: 'Not Found' });
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (err instanceof OAuthHttpError) send(res, err.status, err.body);
      else send(res, 500, { message: (err as Error).message });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    origin,
    clients,
    env: {
      GITHUB_CLIENT_ID: clients.github.id,
      GITHUB_CLIENT_SECRET: clients.github.secret,
      GITHUB_OAUTH_URL: `${origin}/github`,
      GITHUB_API_URL: `${origin}/github-api`,
      GOOGLE_CLIENT_ID: clients.google.id,
      GOOGLE_CLIENT_SECRET: clients.google.secret,
      GOOGLE_OAUTH_URL: `${origin}/google`,
      GOOGLE_TOKEN_URL: `${origin}/google/token`,
      GOOGLE_USERINFO_URL: `${origin}/google/userinfo`,
    },
    github,
    google,
    grants,
    requests,
    addGithubUser(user) {
      const email = user.emails?.find((e) => e.primary)?.email ?? `${user.login}@users.example.com`;
      const full: FakeGithubUser = { id: ++githubIds, name: user.login, email: null, emails: [{ email, primary: true, verified: true }], ...user };
      github.set(full.login, full);
      return full;
    },
    addGoogleUser(user) {
      googleIds += 1;
      const full: FakeGoogleUser = { sub: String(googleIds), email_verified: true, name: user.email.split('@')[0], ...user };
      google.set(full.sub, full);
      return full;
    },
    async authorize(authorizeUrl, login, opts = {}) {
      const url = new URL(authorizeUrl);
      if (url.origin !== origin) throw new Error(`fake OAuth provider: ${authorizeUrl} is not at ${origin}`);
      url.searchParams.set('login', login);
      if (opts.deny) url.searchParams.set('deny', '1');
      const res = await request(url);
      const text = await res.body.text();
      const location = res.headers.location;
      if (res.statusCode !== 302 || typeof location !== 'string') throw new Error(`fake OAuth provider: authorize answered ${res.statusCode} ${text}`);
      const target = new URL(location);
      return {
        location,
        path: `${target.pathname}${target.search}`,
        code: target.searchParams.get('code'),
        state: target.searchParams.get('state'),
        error: target.searchParams.get('error'),
      };
    },
    fail(failure) {
      failures.push({ ...failure, remaining: failure.times ?? 1 });
    },
    requestsTo(path, method) {
      return requests.filter((r) => (typeof path === 'string' ? r.path.includes(path) : path.test(r.path)) && (!method || r.method === method.toUpperCase()));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
