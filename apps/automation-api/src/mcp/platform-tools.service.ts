import { Injectable } from '@nestjs/common';
import { AccountsService } from '../accounts/accounts.service';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { Clock } from '../common/clock';
import { ContactsService } from '../contacts/contacts.service';
import { GraphApiError } from '../graph/graph-api.error';
import { REQUIRED_SUBSCRIBED_FIELDS } from '../graph/graph-client';
import { GraphService } from '../graph/graph.service';
import type { FollowerDto, SubscriptionDto } from './platform-tools.dto';

/** The operations that exist only as MCP tools: check_follower and subscribe_webhooks. */
@Injectable()
export class PlatformToolsService {
  constructor(
    private readonly graph: GraphService,
    private readonly accounts: AccountsService,
    private readonly contacts: ContactsService,
    private readonly clock: Clock,
  ) {}

  /**
   * Reads whether the person follows the account (`is_user_follow_business`) and stores it on their
   * contact. Without the person's consent the platform refuses: follows null with the reason.
   */
  async checkFollower(account: AccountEntity, igId: string): Promise<FollowerDto> {
    const checked_at = this.clock.now().toISOString();
    try {
      const profile = await this.graph.client(account).getUserProfile(igId);
      const follows = profile.is_user_follow_business === undefined ? null : profile.is_user_follow_business ? 1 : 0;
      await this.contacts.setFollows(account.id, igId, follows === null ? null : follows === 1, profile.username ?? null);
      return { ig_id: igId, username: profile.username ?? null, follows, reason: follows === null ? 'the platform did not report the follow status' : null, checked_at };
    } catch (err) {
      if (err instanceof GraphApiError && err.kind === 'platform' && /consent/i.test(err.detail)) {
        return { ig_id: igId, username: null, follows: null, reason: err.detail, checked_at };
      }
      throw err;
    }
  }

  async subscribeWebhooks(account: AccountEntity, fields?: string[]): Promise<SubscriptionDto> {
    const subscribed = await this.accounts.subscribeWebhooks(account, fields ?? REQUIRED_SUBSCRIBED_FIELDS);
    const missing = REQUIRED_SUBSCRIBED_FIELDS.filter((f) => !subscribed.includes(f));
    return { subscribed_fields: subscribed, webhook_problem: missing.length ? `Webhook subscription is missing fields: ${missing.join(', ')}` : null };
  }
}
