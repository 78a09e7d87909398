import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { generateApiKey, hashApiKey } from '@platform/auth';
import { Clock } from '../common/clock';
import { AutomationConfig } from '../config';
import { REQUIRED_SUBSCRIBED_FIELDS, type TokenDebugResult } from '../graph/graph-client';
import { GraphService } from '../graph/graph.service';
import { SANDBOX, isSandbox, sandboxGraphUrl } from './sandbox-account';
import { AccountsRepository, type WebhookAccount } from './accounts.repository';
import { configuredTokenDecision, type ConfiguredTokenDecision } from './configured-token';
import type { AccountEntity } from './entities/account.entity';
import { ENCRYPTED_PREFIX, TokenCipher, activeTokenCipher, parseTokenKey, useTokenCipher } from './token-cipher';

export type { WebhookAccount } from './accounts.repository';

export interface NewAccount {
  name: string;
  graph_url?: string;
  ig_user_id?: string | null;
  access_token?: string | null;
  app_secret?: string | null;
  verify_token?: string | null;
  email_public_key?: string | null;
  public_base_url?: string | null;
}

@Injectable()
export class AccountsService implements OnApplicationBootstrap {
  private readonly logger = new Logger(AccountsService.name);

  constructor(
    private readonly accounts: AccountsRepository,
    @Inject(AutomationConfig) private readonly config: AutomationConfig,
    private readonly graph: GraphService,
    private readonly clock: Clock,
  ) {
    // Token columns are encrypted with this key (AccountEntity's transformer).
    useTokenCipher(new TokenCipher(config.AUTOMATION_TOKEN_KEY ? parseTokenKey(config.AUTOMATION_TOKEN_KEY) : null));
  }

  findByKeyHash(hash: string): Promise<AccountEntity | null> {
    return this.accounts.findByKeyHash(hash);
  }

  findById(id: number): Promise<AccountEntity | null> {
    return this.accounts.findById(id);
  }

  update(id: number, fields: Partial<AccountEntity>): Promise<void> {
    return this.accounts.update(id, fields);
  }

  /** Accounts by professional account id (webhook `entry.id`): what the webhook receiver needs of them. */
  byIgUserIds(ids: string[]): Promise<WebhookAccount[]> {
    return this.accounts.byIgUserIds(ids);
  }

  /** Whether an account has this webhook verify token. */
  verifyTokenKnown(token: string): Promise<boolean> {
    return this.accounts.verifyTokenKnown(token);
  }

  /** At every start: the account of AUTOMATION_API_KEY, created or updated from the IG_* variables. */
  async onApplicationBootstrap(): Promise<void> {
    if (!(await this.accounts.ready())) {
      if (this.config.AUTOMATION_API_KEY) this.logger.warn('tables missing (migrations not applied yet): the AUTOMATION_API_KEY account is created at the next start');
      return;
    }
    await this.encryptStoredTokens();
    if (!this.config.AUTOMATION_API_KEY) return;
    const key = this.config.AUTOMATION_API_KEY;
    const sandbox = isSandbox(this.config);
    const token = sandbox ? SANDBOX.accessToken : (this.config.IG_ACCESS_TOKEN ?? null);
    const configured = token ? { token, sha256: createHash('sha256').update(token).digest('hex') } : null;
    let decision = 'replace' as ConfiguredTokenDecision;
    const { account, created } = await this.accounts.upsertByKey(
      {
        name: 'default',
        graph_url: sandbox ? sandboxGraphUrl(this.config) : this.config.IG_GRAPH_URL,
        ig_user_id: sandbox ? SANDBOX.igUserId : (this.config.IG_USER_ID ?? null),
        ig_username: sandbox ? SANDBOX.username : undefined,
        app_secret: sandbox ? SANDBOX.appSecret : (this.config.IG_APP_SECRET ?? null),
        verify_token: sandbox ? SANDBOX.verifyToken : (this.config.IG_VERIFY_TOKEN ?? null),
        email_public_key: this.config.EMAIL_PUBLIC_KEY ?? null,
        youtube_refresh_token: this.config.YOUTUBE_REFRESH_TOKEN ?? null,
        public_base_url: this.config.PUBLIC_BASE_URL ?? (sandbox ? `http://127.0.0.1:${this.config.PORT}` : null),
      },
      hashApiKey(key),
      key.slice(0, 8),
      'AUTOMATION_API_KEY',
      // Never an older configured token over a newer stored one (configured-token.ts).
      (existing) => {
        decision = configuredTokenDecision(existing, configured);
        if (decision === 'keep') {
          return {
            ...(configured ? { configured_token_sha256: configured.sha256 } : {}),
            ...(sandbox ? { account_status: 'sandbox' as const } : existing ? {} : { account_status: 'not_connected' as const }),
          };
        }
        return {
          access_token: configured?.token ?? null,
          configured_token_sha256: configured?.sha256 ?? null,
          // Unknown until the token scheduler reads it from the platform (TokenRefreshWorker, at start).
          token_expires_at: null,
          token_issued_at: null,
          token_refreshed_at: null,
          token_refresh_attempts: 0,
          token_lease_until: null,
          account_status: sandbox ? 'sandbox' : configured ? 'connected' : 'not_connected',
        } as Partial<AccountEntity>;
      },
    );
    this.logger.log(
      `${created ? 'created' : 'updated'} account ${account.id} from AUTOMATION_API_KEY${sandbox ? ' (connected to the built-in sandbox: /sandbox/*)' : ''}${decision === 'keep' && !created ? ' (stored token kept: IG_ACCESS_TOKEN unchanged)' : ''}`,
    );
  }

  /** Tokens stored as plaintext (before AUTOMATION_TOKEN_KEY was set) are encrypted; without a key, a warning. */
  private async encryptStoredTokens(): Promise<void> {
    const cipher = activeTokenCipher();
    if (!cipher.enabled) {
      if (!isSandbox(this.config)) this.logger.warn('AUTOMATION_TOKEN_KEY is not set: platform tokens are stored unencrypted');
      return;
    }
    const done = await this.accounts.encryptPlaintextTokens(ENCRYPTED_PREFIX, (plain) => cipher.encrypt(plain));
    if (done > 0) this.logger.log(`encrypted ${done} stored token(s) with AUTOMATION_TOKEN_KEY`);
  }

  /** Accounts connected to a platform account (status connected, a token and the platform id). */
  connectedIds(): Promise<number[]> {
    return this.accounts.connectedIds();
  }

  /** The account connected to this professional account id, if any. */
  findByIgUserId(igUserId: string): Promise<AccountEntity | null> {
    return this.accounts.findByIgUserId(igUserId);
  }

  /** A new account with a fresh key; the key is returned once and stored hashed. */
  async create(input: NewAccount): Promise<{ account: AccountEntity; apiKey: string }> {
    const apiKey = generateApiKey('aut');
    const account = await this.accounts.createWithKey(
      {
        name: input.name,
        graph_url: input.graph_url ?? this.config.IG_GRAPH_URL,
        ig_user_id: input.ig_user_id ?? null,
        access_token: input.access_token ?? null,
        app_secret: input.app_secret ?? null,
        verify_token: input.verify_token ?? null,
        email_public_key: input.email_public_key ?? null,
        public_base_url: input.public_base_url ?? this.config.PUBLIC_BASE_URL ?? null,
        account_status: input.access_token ? 'connected' : 'not_connected',
      },
      hashApiKey(apiKey),
      apiKey.slice(0, 8),
      'create-account',
    );
    return { account, apiKey };
  }

  /**
   * Refreshes the long-lived access token (the platform needs it at least 24 hours old and not
   * expired) and stores the new one with its expiry, unless the account got another token meanwhile.
   * Used by the MCP tool `refresh_token` and the token scheduler (`TokenRefreshWorker`).
   */
  async refreshToken(account: AccountEntity, mode: 'interactive' | 'background' = 'interactive'): Promise<AccountEntity> {
    const result = await this.graph.client(account, mode).refreshToken();
    const now = this.clock.now();
    const fields: Partial<AccountEntity> = {
      access_token: result.access_token,
      token_refreshed_at: now,
      token_issued_at: now,
      token_expires_at: new Date(now.getTime() + result.expires_in * 1000),
      token_refresh_attempts: 0,
      account_status: 'connected',
    };
    await this.accounts.updateForToken(account.id, account.access_token ?? '', fields);
    return (await this.accounts.findById(account.id)) ?? { ...account, ...fields };
  }

  /** The platform's own view of the stored token (`debug_token`): validity, issue time, expiry. */
  async tokenInfo(account: AccountEntity, mode: 'interactive' | 'background' = 'interactive'): Promise<TokenDebugResult['data']> {
    return (await this.graph.client(account, mode).debugToken()).data ?? {};
  }

  /** Stores what was learned about `token` while the account still holds it; false when it was replaced. */
  updateForToken(id: number, token: string, fields: Partial<AccountEntity>): Promise<boolean> {
    return this.accounts.updateForToken(id, token, fields);
  }

  /**
   * Counts a failed refresh and keeps `problem` as the account's problem (`{attempt}` in it becomes
   * the attempt number); `invalid` marks the token invalid. Resolves with the attempt number.
   */
  recordTokenFailure(id: number, problem: string, invalid: boolean): Promise<number> {
    return this.accounts.recordTokenFailure(id, problem, this.clock.now(), invalid);
  }

  claimTokensToRefresh(beforeDays: number, leaseSeconds: number): Promise<number[]> {
    return this.accounts.claimTokensToRefresh(this.clock.now(), beforeDays, leaseSeconds);
  }

  /** Subscribes the app to the account's webhook fields (MCP tool `subscribe_webhooks`). */
  async subscribeWebhooks(account: AccountEntity, fields: string[] = REQUIRED_SUBSCRIBED_FIELDS): Promise<string[]> {
    const client = this.graph.client(account);
    await client.subscribe(fields);
    return client.getSubscribedFields();
  }
}
