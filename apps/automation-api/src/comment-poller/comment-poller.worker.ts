import { Inject, Injectable, Logger } from '@nestjs/common';
import { PollingWorker } from '@platform/database';
import { AccountsService } from '../accounts/accounts.service';
import { Clock } from '../common/clock';
import { AutomationConfig } from '../config';
import { CommentPollerRepository } from './comment-poller.repository';
import { RecoverComments } from './recover-comments';

/**
 * The comment poller (no comment missed): at start and every COMMENT_POLL_INTERVAL_MS each replica
 * claims the connected accounts due for a pass — claimDue with a lease of 0.9 × the interval on
 * `comment_poll_accounts.lease_until`, so one replica polls an account per interval — and runs
 * RecoverComments for each. An account seen for the first time gets its start-date watermark
 * (COMMENT_POLL_START, else now): comments older than that are never answered by a recovery; its
 * first pass comes one interval later.
 */
@Injectable()
export class CommentPollerWorker extends PollingWorker {
  protected readonly logger = new Logger(CommentPollerWorker.name);

  constructor(
    private readonly accounts: AccountsService,
    private readonly repo: CommentPollerRepository,
    private readonly recover: RecoverComments,
    private readonly clock: Clock,
    @Inject(AutomationConfig) private readonly config: AutomationConfig,
  ) {
    super(config.COMMENT_POLL_INTERVAL_MS);
  }

  async tick(): Promise<number> {
    const ids = await this.accounts.connectedIds();
    const lease = Math.max(0.02, (this.config.COMMENT_POLL_INTERVAL_MS * 0.9) / 1000);
    await this.repo.ensure(ids, this.config.COMMENT_POLL_START ? new Date(this.config.COMMENT_POLL_START) : this.clock.now(), lease);
    const rows = await this.repo.claim(ids, lease, 20);
    for (const row of rows) {
      const account = await this.accounts.findById(row.account_id);
      if (!account?.ig_user_id || !account.access_token) continue;
      const result = await this.recover.execute(account, row);
      await this.repo.recordPass(account.id, this.clock.now(), result);
      if (result.error) this.logger.warn(`comment poller, account ${account.id}: ${result.error}`);
      else if (result.recovered > 0) this.logger.log(`comment poller, account ${account.id}: ${result.recovered} comment(s) whose webhook never came recovered`);
    }
    return rows.length;
  }
}
