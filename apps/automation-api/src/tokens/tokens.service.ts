import { Inject, Injectable } from '@nestjs/common';
import { AccountsService } from '../accounts/accounts.service';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { Clock } from '../common/clock';
import { AutomationConfig } from '../config';
import { GraphApiError } from '../graph/graph-api.error';
import type { TokenRefreshDto } from './token.dto';

const DAY = 86_400_000;
/** Prefix of the problem a failed scheduled token refresh records on the account (GET /status shows it, status/status.service.ts). */
export const TOKEN_PROBLEM_PREFIX = 'Token refresh failed: ';

/**
 * The account's long-lived platform token: its expiry learned from the platform (`debug_token`, else
 * the refresh answer), refreshed ahead of expiry (MCP tool `refresh_token`, the token scheduler), and
 * every failure counted and shown in GET /status `problem` until a refresh works.
 */
@Injectable()
export class TokensService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly clock: Clock,
    @Inject(AutomationConfig) private readonly config: AutomationConfig,
  ) {}

  /** Refreshes now; a platform failure is a 502 (and an auth failure marks the account token_invalid). */
  async refresh(account: AccountEntity, mode: 'interactive' | 'background' = 'interactive'): Promise<TokenRefreshDto> {
    try {
      const refreshed = await this.accounts.refreshToken(account, mode);
      await this.clearProblem(refreshed);
      return this.present(refreshed);
    } catch (err) {
      if (err instanceof GraphApiError) await this.failed(account, err);
      throw err;
    }
  }

  /**
   * What the scheduler does with a claimed account: learn an unknown expiry (a token just configured
   * or connected), else refresh. Resolves with what happened; throws the platform's error otherwise.
   */
  async maintain(account: AccountEntity): Promise<'learned' | 'refreshed'> {
    if (account.token_expires_at) {
      await this.refresh(account, 'background');
      return 'refreshed';
    }
    return this.learn(account);
  }

  /**
   * Reads the token's expiry from the platform without changing the token (`debug_token`). When the
   * platform does not answer that (or reports no expiry), the refresh answer gives it instead — a token
   * younger than 24 hours cannot be refreshed yet, so that failure is retried at the next interval.
   */
  async learn(account: AccountEntity): Promise<'learned' | 'refreshed'> {
    let info: Awaited<ReturnType<AccountsService['tokenInfo']>> | null = null;
    try {
      info = await this.accounts.tokenInfo(account, 'background');
    } catch (err) {
      if (!(err instanceof GraphApiError)) throw err;
      if (err.kind === 'auth') {
        await this.failed(account, err);
        throw err;
      }
      // Token inspection not available: the refresh answer says it.
    }
    if (info?.is_valid === false) {
      const err = new GraphApiError('auth', 'the platform reports the access token as invalid (debug_token is_valid: false)');
      await this.failed(account, err);
      throw err;
    }
    if (info?.expires_at && info.expires_at > 0) {
      await this.accounts.updateForToken(account.id, account.access_token ?? '', {
        token_expires_at: new Date(info.expires_at * 1000),
        token_issued_at: info.issued_at ? new Date(info.issued_at * 1000) : null,
        token_refresh_attempts: 0,
      });
      await this.clearProblem(account);
      return 'learned';
    }
    await this.refresh(account, 'background');
    return 'refreshed';
  }

  present(a: AccountEntity): TokenRefreshDto {
    const expires = a.token_expires_at;
    return {
      account_status: a.account_status,
      token_expires_at: expires ? expires.toISOString() : null,
      token_expires_in_days: expires ? Math.floor((expires.getTime() - this.clock.now().getTime()) / DAY) : null,
      token_refreshed_at: a.token_refreshed_at ? a.token_refreshed_at.toISOString() : null,
    };
  }

  private async failed(account: AccountEntity, err: GraphApiError): Promise<void> {
    const every = Math.round(this.config.TOKEN_REFRESH_INTERVAL_MS / 60_000);
    const until = account.token_expires_at ? ` until the token expires at ${account.token_expires_at.toISOString()}` : '';
    const next = err.kind === 'auth' ? 'set a new IG_ACCESS_TOKEN or reconnect the account' : `tried again every ${every} min${until}`;
    await this.accounts.recordTokenFailure(account.id, `${TOKEN_PROBLEM_PREFIX}${err.detail} (attempt {attempt}; ${next})`, err.kind === 'auth');
  }

  private async clearProblem(account: AccountEntity): Promise<void> {
    if (account.last_problem?.startsWith(TOKEN_PROBLEM_PREFIX)) await this.accounts.update(account.id, { last_problem: null, last_problem_at: null });
  }
}
