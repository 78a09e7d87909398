import { request, type Dispatcher } from 'undici';
import { GraphApiError } from '../graph/graph-api.error';

/** The platform's Business Login endpoints: code → short-lived token → long-lived token → the account. */
export interface LoginClientConfig {
  appId: string;
  appSecret: string;
  /** Code exchange, e.g. https://api.instagram.com/oauth/access_token */
  tokenUrl: string;
  /** Graph API base with version (https://graph.instagram.com/v23.0); the long-lived exchange is at its root. */
  graphUrl: string;
  timeoutMs: number;
}

export interface ShortLivedToken {
  access_token: string;
  user_id: string | null;
  permissions: string[];
}

export interface LongLivedToken {
  access_token: string;
  /** Seconds (about 60 days). */
  expires_in: number;
}

export interface LoginAccount {
  user_id: string;
  username: string | null;
}

type Json = Record<string, unknown>;

export class InstagramLoginClient {
  constructor(private readonly config: LoginClientConfig) {}

  /** `POST <tokenUrl>` form: client_id, client_secret, grant_type=authorization_code, redirect_uri, code. */
  async exchangeCode(code: string, redirectUri: string): Promise<ShortLivedToken> {
    const body = new URLSearchParams({
      client_id: this.config.appId,
      client_secret: this.config.appSecret,
      grant_type: 'authorization_code',
      redirect_uri: redirectUri,
      code,
    }).toString();
    const json = await this.send(this.config.tokenUrl, 'POST', body, 'the code exchange');
    // Business Login answers {data: [{access_token, user_id, permissions}]}; older answers are flat.
    const first = Array.isArray(json.data) && json.data[0] && typeof json.data[0] === 'object' ? (json.data[0] as Json) : json;
    const token = first.access_token;
    if (typeof token !== 'string' || !token) throw new GraphApiError('platform', 'the code exchange answered no access_token');
    const perms = first.permissions;
    return {
      access_token: token,
      user_id: typeof first.user_id === 'string' || typeof first.user_id === 'number' ? String(first.user_id) : null,
      permissions: Array.isArray(perms) ? perms.map(String) : typeof perms === 'string' ? perms.split(',').filter(Boolean) : [],
    };
  }

  /** `GET <graph root>/access_token?grant_type=ig_exchange_token&client_secret=…&access_token=<short-lived>`. */
  async longLived(shortToken: string): Promise<LongLivedToken> {
    const url = new URL('/access_token', new URL(this.config.graphUrl).origin);
    url.searchParams.set('grant_type', 'ig_exchange_token');
    url.searchParams.set('client_secret', this.config.appSecret);
    url.searchParams.set('access_token', shortToken);
    const json = await this.send(url.toString(), 'GET', undefined, 'the long-lived token exchange');
    if (typeof json.access_token !== 'string' || !json.access_token) throw new GraphApiError('platform', 'the long-lived token exchange answered no access_token');
    const expires = Number(json.expires_in);
    return { access_token: json.access_token, expires_in: Number.isFinite(expires) && expires > 0 ? expires : 5_184_000 };
  }

  /** `GET /me?fields=user_id,username`: `user_id` is the professional account id (= webhook entry.id). */
  async account(token: string): Promise<LoginAccount> {
    const base = new URL(this.config.graphUrl);
    const url = new URL(`${base.pathname.replace(/\/$/, '')}/me`, base.origin);
    url.searchParams.set('fields', 'user_id,username');
    const json = await this.send(url.toString(), 'GET', undefined, 'reading the account', token);
    const id = json.user_id ?? json.id;
    if (typeof id !== 'string' && typeof id !== 'number') throw new GraphApiError('platform', 'the account answered no user_id');
    return { user_id: String(id), username: typeof json.username === 'string' ? json.username : null };
  }

  private async send(url: string, method: 'GET' | 'POST', body: string | undefined, what: string, token?: string): Promise<Json> {
    let res: Dispatcher.ResponseData;
    try {
      res = await request(url, {
        method,
        headers: {
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body,
        headersTimeout: this.config.timeoutMs,
        bodyTimeout: this.config.timeoutMs,
      });
    } catch (err) {
      const code = (err as { code?: string }).code ?? '';
      if (code.includes('TIMEOUT')) throw new GraphApiError('timeout', `${what}: no answer within ${this.config.timeoutMs} ms`);
      throw new GraphApiError('network', `${what}: cannot reach the platform (${code || (err as Error).message})`);
    }
    let json: Json;
    try {
      json = (await res.body.json()) as Json;
    } catch {
      throw new GraphApiError('platform', `${what}: answered HTTP ${res.statusCode} without JSON`, { status: res.statusCode });
    }
    if (res.statusCode >= 200 && res.statusCode < 300 && !json.error && !json.error_type) return json;
    // Graph errors are {error: {message, code}}; the code exchange answers {error_type, code, error_message}.
    const e = (typeof json.error === 'object' && json.error ? json.error : json) as Json;
    const message = String(e.message ?? e.error_message ?? json.error_description ?? `HTTP ${res.statusCode}`);
    const code = typeof e.code === 'number' ? e.code : undefined;
    throw new GraphApiError(code === 190 ? 'auth' : 'platform', `${what} refused: ${message}${code !== undefined ? ` (code ${code})` : ''}`, { status: res.statusCode, code });
  }
}
