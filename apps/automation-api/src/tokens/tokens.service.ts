import { Injectable } from '@nestjs/common';
import { AccountsService } from '../accounts/accounts.service';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { Clock } from '../common/clock';
import { GraphApiError } from '../graph/graph-api.error';
import { TOKEN_PROBLEM_PREFIX } from '../status/status.service';
import type { TokenRefreshDto } from './token.dto';

const DAY = 86_400_000;

/** Refreshing the account's long-lived platform token (MCP tool `refresh_token`, the token scheduler). */
@Injectable()
export class TokensService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly clock: Clock,
  ) {}

  /** Refreshes now; a platform failure is a 502 (and an auth failure marks the account token_invalid). */
  async refresh(account: AccountEntity, mode: 'interactive' | 'background' = 'interactive'): Promise<TokenRefreshDto> {
    try {
      return this.present(await this.accounts.refreshToken(account, mode));
    } catch (err) {
      if (err instanceof GraphApiError) {
        await this.accounts.update(account.id, {
          last_problem: `${TOKEN_PROBLEM_PREFIX}${err.detail}`,
          last_problem_at: this.clock.now(),
          ...(err.kind === 'auth' ? { account_status: 'token_invalid' as const } : {}),
        });
      }
      throw err;
    }
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
}
