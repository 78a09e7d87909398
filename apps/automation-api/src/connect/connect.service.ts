import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { AccountsService } from '../accounts/accounts.service';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { Clock } from '../common/clock';
import { AutomationConfig } from '../config';
import { GraphApiError } from '../graph/graph-api.error';
import type { ConnectPage } from './connect-page';
import { ConnectRepository, type ConnectionRow } from './connect.repository';
import { InstagramLoginClient } from './instagram-login.client';

/** Path of the connect page (outside /api/v1, no API key: the link's secret is the credential). */
export const CONNECT_PATH = '/connect/instagram';
/** Cookie binding the OAuth callback to the browser that started it (its value is the nonce). */
export const CONNECT_COOKIE = 'automation_connect';
/** Time from "Connect" to the callback. */
export const STATE_TTL_MS = 10 * 60_000;

const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');
const secret = (): string => randomBytes(32).toString('base64url');

export type PageResult = { status: number; page: ConnectPage };
export type StartResult = { redirect: string; nonce: string } | PageResult;

export interface CallbackInput {
  code?: string;
  state?: string;
  error?: string;
  error_reason?: string;
  error_description?: string;
}

/**
 * Connecting an account through the platform's OAuth login (Business Login):
 * 1. `create-account` / `connect-account` print a connect link (a random secret, stored as its
 *    SHA-256, valid CONNECT_LINK_HOURS, usable until an account is connected through it);
 * 2. the operator opens it (`GET /connect/instagram?link=…`) and presses "Connect": a fresh random
 *    `state` (stored as its digest, 10 minutes, single use) goes to the authorization window, and a
 *    random nonce to the browser as an HttpOnly cookie;
 * 3. the callback must bring back that state **and** the cookie of the same browser (CSRF: a code
 *    injected from another browser or a replayed state is refused); the code is exchanged for a
 *    short-lived token, that for a long-lived one (60 days), and `/me` names the account; the token
 *    is stored (encrypted, AccountEntity) with its expiry, and the webhook fields are subscribed.
 *    The token scheduler refreshes it from then on.
 */
@Injectable()
export class ConnectService {
  private readonly logger = new Logger(ConnectService.name);

  constructor(
    private readonly repo: ConnectRepository,
    private readonly accounts: AccountsService,
    private readonly clock: Clock,
    @Inject(AutomationConfig) private readonly config: AutomationConfig,
  ) {}

  /** Why connecting through the login is not possible in this configuration, or null. */
  get unavailable(): string | null {
    if (!this.config.IG_APP_ID) return 'IG_APP_ID is not set (the app id of the login)';
    if (!this.config.IG_APP_SECRET) return 'IG_APP_SECRET is not set (the app secret of the login)';
    if (!this.redirectUri) return 'neither IG_OAUTH_REDIRECT_URL nor PUBLIC_BASE_URL is set (the login needs a redirect URI)';
    return null;
  }

  private get redirectUri(): string | null {
    if (this.config.IG_OAUTH_REDIRECT_URL) return this.config.IG_OAUTH_REDIRECT_URL;
    return this.config.PUBLIC_BASE_URL ? `${this.config.PUBLIC_BASE_URL.replace(/\/$/, '')}${CONNECT_PATH}/callback` : null;
  }

  /** Origin of the platform's authorization window (IG_OAUTH_AUTHORIZE_URL), where the page's form redirects. */
  get authorizeOrigin(): string {
    return URL.canParse(this.config.IG_OAUTH_AUTHORIZE_URL) ? new URL(this.config.IG_OAUTH_AUTHORIZE_URL).origin : '';
  }

  /** Public origin of the connect page: PUBLIC_BASE_URL, else the local port. */
  private get origin(): string {
    return (this.config.PUBLIC_BASE_URL ?? `http://localhost:${this.config.PORT}`).replace(/\/$/, '');
  }

  /** A new connect link for the account (printed by the commands; shown once). */
  async createLink(accountId: number): Promise<{ url: string; expires_at: Date }> {
    const why = this.unavailable;
    if (why) throw new ApiError(409, 'LOGIN_NOT_CONFIGURED', `Connecting through the platform login is off: ${why}`);
    const account = await this.accounts.findById(accountId);
    if (!account) throw new ApiError(404, 'ACCOUNT_NOT_FOUND', `No account ${accountId}`);
    const link = secret();
    const expiresAt = new Date(this.clock.now().getTime() + this.config.CONNECT_LINK_HOURS * 3_600_000);
    await this.repo.createLink(account.id, sha256(link), expiresAt);
    return { url: `${this.origin}${CONNECT_PATH}?link=${link}`, expires_at: expiresAt };
  }

  /** The page the link opens: the account and a "Connect" button. */
  async page(link: string): Promise<PageResult> {
    const found = await this.openLink(link);
    if ('status' in found) return found;
    const { account } = found;
    const connected = account.access_token && account.ig_username ? ` It is connected to @${account.ig_username} now; connecting again replaces that connection.` : '';
    return {
      status: 200,
      page: {
        title: `Connect "${account.name}"`,
        paragraphs: [
          `This connects the automation account "${account.name}" (id ${account.id}) to an Instagram professional account.${connected}`,
          'You will log in on Instagram and allow comment, message and publishing access; you then come back here.',
        ],
        form: { action: `${CONNECT_PATH}/start`, fields: { link }, button: 'Connect with Instagram' },
      },
    };
  }

  /** "Connect" pressed: a fresh state for the authorization window, and the browser nonce for the cookie. */
  async start(link: string): Promise<StartResult> {
    const found = await this.openLink(link);
    if ('status' in found) return found;
    const state = secret();
    const nonce = secret();
    const now = this.clock.now();
    if (!(await this.repo.start(found.row.id, sha256(state), sha256(nonce), new Date(now.getTime() + STATE_TTL_MS), now))) {
      return this.linkGone();
    }
    const url = new URL(this.config.IG_OAUTH_AUTHORIZE_URL);
    url.searchParams.set('client_id', this.config.IG_APP_ID!);
    url.searchParams.set('redirect_uri', this.redirectUri!);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('scope', this.config.IG_OAUTH_SCOPES);
    url.searchParams.set('state', state);
    return { redirect: url.toString(), nonce };
  }

  /** The platform sent the browser back: check state and cookie, exchange the code, store the token. */
  async callback(input: CallbackInput, cookieNonce: string | undefined): Promise<PageResult> {
    const refused = (why: string): PageResult => ({
      status: 400,
      page: { title: 'Connection refused', paragraphs: [why, 'Open the connect link again and press "Connect" in the same browser.'] },
    });
    if (!input.state) return refused('The answer of the login carries no state.');
    const row = await this.repo.byState(sha256(input.state));
    const now = this.clock.now();
    if (!row || row.completed_at || !row.state_expires_at || row.state_expires_at <= now) {
      return refused('This login answer is unknown, used already or expired (a login must be finished within 10 minutes).');
    }
    if (!cookieNonce || !row.nonce_sha256 || !sameDigest(sha256(cookieNonce), row.nonce_sha256)) {
      return refused('This login was not started in this browser.');
    }
    if (input.error || !input.code) {
      await this.repo.spend(row.id, `login not completed: ${input.error ?? 'no code'}`);
      const why = input.error_description ?? input.error_reason ?? input.error ?? 'no authorization code';
      return { status: 200, page: { title: 'Connection cancelled', paragraphs: [`The login was not completed: ${why}.`, 'Open the connect link again to try once more.'] } };
    }
    if (!(await this.repo.take(row.id, now))) return refused('This login answer was used already.');
    try {
      return await this.complete(row, input.code.replace(/#_$/, ''));
    } catch (err) {
      const message = err instanceof GraphApiError ? err.detail : err instanceof ApiError ? err.message : (err as Error).message;
      this.logger.warn(`connecting account ${row.account_id} failed: ${message}`);
      await this.repo.reopen(row.id, message);
      return {
        status: err instanceof ApiError && err.getStatus() < 500 ? err.getStatus() : 502,
        page: { title: 'Connection failed', paragraphs: [message, 'Open the connect link again to try once more.'] },
      };
    }
  }

  private async complete(row: ConnectionRow, code: string): Promise<PageResult> {
    const account = await this.accounts.findById(row.account_id);
    if (!account) throw new ApiError(404, 'ACCOUNT_NOT_FOUND', 'The account of this link no longer exists.');
    const client = new InstagramLoginClient({
      appId: this.config.IG_APP_ID!,
      appSecret: this.config.IG_APP_SECRET!,
      tokenUrl: this.config.IG_OAUTH_TOKEN_URL,
      graphUrl: account.graph_url,
      timeoutMs: this.config.GRAPH_TIMEOUT_MS,
    });
    const short = await client.exchangeCode(code, this.redirectUri!);
    const long = await client.longLived(short.access_token);
    const me = await client.account(long.access_token);
    const other = await this.accounts.findByIgUserId(me.user_id);
    if (other && other.id !== account.id) {
      throw new ApiError(409, 'ACCOUNT_TAKEN', `The Instagram account @${me.username ?? me.user_id} is connected to another automation account (id ${other.id}) already.`);
    }
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + long.expires_in * 1000);
    const fields: Partial<AccountEntity> = {
      access_token: long.access_token,
      ig_user_id: me.user_id,
      ig_username: me.username,
      token_issued_at: now,
      token_expires_at: expiresAt,
      token_refresh_attempts: 0,
      token_lease_until: null,
      account_status: 'connected',
      last_problem: null,
      last_problem_at: null,
    };
    await this.accounts.update(account.id, fields);
    await this.repo.recordConnected(row.id, me.user_id);
    this.logger.log(`account ${account.id} connected to ${me.username ?? me.user_id} through the platform login`);
    const paragraphs = [
      `The automation account "${account.name}" is now connected to @${me.username ?? me.user_id} (id ${me.user_id}).`,
      `The access token is valid until ${expiresAt.toISOString()} and is refreshed by the service before then.`,
    ];
    try {
      const fieldsNow = await this.accounts.subscribeWebhooks({ ...account, ...fields } as AccountEntity);
      paragraphs.push(`Webhooks subscribed: ${fieldsNow.join(', ')}.`);
    } catch (err) {
      paragraphs.push(`The webhook subscription could not be set up yet (${err instanceof GraphApiError ? err.detail : (err as Error).message}); the service tries again by itself.`);
    }
    paragraphs.push('You can close this page.');
    return { status: 200, page: { title: 'Connected', paragraphs } };
  }

  private async openLink(link: string): Promise<{ row: ConnectionRow; account: AccountEntity } | PageResult> {
    const why = this.unavailable;
    if (why) return { status: 409, page: { title: 'Connecting is off', paragraphs: [`Connecting through the platform login is off: ${why}.`] } };
    const row = await this.repo.byLink(sha256(link));
    if (!row || row.completed_at || row.link_expires_at <= this.clock.now()) return this.linkGone();
    const account = await this.accounts.findById(row.account_id);
    if (!account) return this.linkGone();
    return { row, account };
  }

  private linkGone(): PageResult {
    return {
      status: 404,
      page: { title: 'Link not valid', paragraphs: ['This connect link is unknown, used already or expired.', 'Print a new one: node main.js connect-account <account id>.'] },
    };
  }
}

function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}
