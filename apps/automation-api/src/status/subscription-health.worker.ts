import { Inject, Injectable, Logger } from '@nestjs/common';
import { PollingWorker } from '@platform/database';
import { AccountsService } from '../accounts/accounts.service';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { Clock } from '../common/clock';
import { AutomationConfig } from '../config';
import { GraphApiError } from '../graph/graph-api.error';
import { REQUIRED_SUBSCRIBED_FIELDS } from '../graph/graph-client';
import { GraphService } from '../graph/graph.service';
import { SubscriptionChecksRepository } from './subscription-checks.repository';

const describe = (err: unknown) => (err instanceof GraphApiError ? err.detail : (err as Error).message);

/**
 * Webhook subscription health: every SUBSCRIPTION_CHECK_INTERVAL_MS each replica claims the connected
 * accounts due for a check (claimDue with a lease of 0.9 × the interval on
 * `subscription_checks.lease_until`: one replica per account and interval) and reads the app's
 * subscription (`GET /{ig-user-id}/subscribed_apps`). When it vanished or lost a required field
 * (comments, messages, messaging_postbacks), the app is subscribed again (`POST …/subscribed_apps`
 * with the fields it had plus the required ones) and the subscription read back. What it found is kept
 * for GET /status (`webhook_problem`, `webhook_checked_at`, `webhook_resubscribed_at`).
 */
@Injectable()
export class SubscriptionHealthWorker extends PollingWorker {
  protected readonly logger = new Logger(SubscriptionHealthWorker.name);

  constructor(
    private readonly accounts: AccountsService,
    private readonly repo: SubscriptionChecksRepository,
    private readonly graph: GraphService,
    private readonly clock: Clock,
    @Inject(AutomationConfig) private readonly config: AutomationConfig,
  ) {
    super(config.SUBSCRIPTION_CHECK_INTERVAL_MS);
  }

  async tick(): Promise<number> {
    const ids = await this.accounts.connectedIds();
    const lease = Math.max(0.02, (this.config.SUBSCRIPTION_CHECK_INTERVAL_MS * 0.9) / 1000);
    await this.repo.ensure(ids, lease);
    const rows = await this.repo.claim(ids, lease, 50);
    for (const row of rows) {
      const account = await this.accounts.findById(row.account_id);
      if (account?.access_token) await this.check(account, row.subscribed_fields);
    }
    return rows.length;
  }

  private async check(account: AccountEntity, previous: string[]): Promise<void> {
    const client = this.graph.client(account, 'background');
    const now = this.clock.now();
    let fields: string[];
    try {
      fields = await client.getSubscribedFields();
    } catch (err) {
      await this.repo.record(account.id, now, previous, `Cannot read the webhook subscription: ${describe(err)}`, false);
      return;
    }
    const missing = REQUIRED_SUBSCRIBED_FIELDS.filter((f) => !fields.includes(f));
    if (missing.length === 0) {
      await this.repo.record(account.id, now, fields, null, false);
      return;
    }
    const lost = fields.length === 0 ? 'had vanished' : `had lost ${missing.join(', ')}`;
    try {
      await client.subscribe([...new Set([...fields, ...REQUIRED_SUBSCRIBED_FIELDS])]);
      const after = await client.getSubscribedFields();
      const still = REQUIRED_SUBSCRIBED_FIELDS.filter((f) => !after.includes(f));
      const problem = still.length
        ? `The webhook subscription ${lost}; after subscribing again it still lacks ${still.join(', ')} (check the app's webhook fields and permissions).`
        : null;
      this.logger.warn(`account ${account.id}: the webhook subscription ${lost}; subscribed again${problem ? ` (${problem})` : ''}`);
      await this.repo.record(account.id, now, after, problem, true);
    } catch (err) {
      await this.repo.record(account.id, now, fields, `The webhook subscription ${lost}; subscribing again failed: ${describe(err)}`, false);
    }
  }
}
