import { Inject, Injectable, Logger } from '@nestjs/common';
import { PollingWorker } from '@platform/database';
import { AccountsService } from '../accounts/accounts.service';
import { AutomationConfig } from '../config';
import { TokensService } from './tokens.service';

/**
 * Keeps long-lived platform tokens alive: at start and every TOKEN_REFRESH_INTERVAL_MS each replica
 * claims the accounts whose token expiry is not known yet (learned from the platform) or whose token
 * expires within TOKEN_REFRESH_BEFORE_DAYS (refreshed) — claimDue with a lease on
 * `accounts.token_lease_until`, so one replica handles an account. A failure is counted and kept in
 * the account's problem (GET /status) and tried again after the lease, at every interval until it works.
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
        const done = await this.tokens.maintain(account);
        this.logger.log(`account ${id}: token ${done === 'learned' ? 'expiry read from the platform' : 'refreshed'}`);
      } catch (err) {
        this.logger.warn(`account ${id}: token ${account.token_expires_at ? 'refresh' : 'expiry lookup'} failed: ${(err as Error).message}`);
      }
    }
    return ids.length;
  }
}
