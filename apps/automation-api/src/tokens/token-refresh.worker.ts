import { Inject, Injectable, Logger } from '@nestjs/common';
import { PollingWorker } from '@platform/database';
import { AccountsService } from '../accounts/accounts.service';
import { AutomationConfig } from '../config';
import { TokensService } from './tokens.service';

/**
 * Refreshes long-lived platform tokens before they expire: every TOKEN_REFRESH_INTERVAL_MS each
 * replica claims the accounts whose token expires within TOKEN_REFRESH_BEFORE_DAYS (claimDue with a
 * lease on `accounts.token_lease_until`, so one replica refreshes an account) and stores the new
 * token and expiry. A failure is kept in the account's problem (GET /status) and tried again after
 * the lease.
 */
@Injectable()
export class TokenRefreshWorker extends PollingWorker {
  protected readonly logger = new Logger(TokenRefreshWorker.name);

  constructor(
    private readonly accounts: AccountsService,
    private readonly tokens: TokensService,
    @Inject(AutomationConfig) private readonly config: AutomationConfig,
  ) {
    super(config.TOKEN_REFRESH_INTERVAL_MS);
  }

  async tick(): Promise<number> {
    const lease = Math.max(1, (this.config.TOKEN_REFRESH_INTERVAL_MS * 0.9) / 1000);
    const ids = await this.accounts.claimTokensToRefresh(this.config.TOKEN_REFRESH_BEFORE_DAYS, lease);
    for (const id of ids) {
      const account = await this.accounts.findById(id);
      if (!account) continue;
      try {
        const result = await this.tokens.refresh(account, 'background');
        this.logger.log(`account ${id}: token refreshed, expires ${result.token_expires_at}`);
      } catch (err) {
        this.logger.warn(`account ${id}: token refresh failed: ${(err as Error).message}`);
      }
    }
    return ids.length;
  }
}
