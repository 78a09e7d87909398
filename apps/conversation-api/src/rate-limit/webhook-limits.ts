import { Injectable } from '@nestjs/common';
import { RateLimiter, type RateLimitDecision } from '@platform/rate-limit';
import { ChannelsService } from '../channels/channels.service';
import { ConversationApiConfig } from '../config';
import { allowedHeaders, limitExceeded, ONE_MINUTE_MS } from './rate-limit';

/**
 * The webhook receivers' limit (`@WebhookRateLimit()`): CONVERSATION_WEBHOOK_RATE_LIMIT_PER_MINUTE
 * deliveries per tenant, the account owning the channel (the channel id itself when no channel has
 * it), on the app's `RateLimiter`. Used by RequestRateLimitGuard and by the webhook's raw route.
 */
@Injectable()
export class WebhookLimits {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly config: ConversationApiConfig,
    private readonly channels: ChannelsService,
  ) {}

  /** Counts a delivery to the channel `channelId` (the path's segment as sent). */
  async hit(channelId: string): Promise<RateLimitDecision> {
    const id = channelId.slice(0, 64);
    const accountId = await this.channels.accountOf(id);
    return this.limiter.hit(`webhook:${accountId ? `account:${accountId}` : `channel:${id}`}`, this.config.CONVERSATION_WEBHOOK_RATE_LIMIT_PER_MINUTE, ONE_MINUTE_MS);
  }

  /**
   * Sets the answer's headers of an allowed delivery (`X-RateLimit-*-webhook`), or throws 429
   * `THROTTLER_LIMIT_EXCEEDED` with `Retry-After` (and `Retry-After-webhook` set on the answer).
   */
  answer(decision: RateLimitDecision, res: { setHeader(name: string, value: string): unknown }): void {
    if (!decision.allowed) {
      const refused = limitExceeded(decision);
      res.setHeader('Retry-After-webhook', refused.headers!['Retry-After']);
      throw refused;
    }
    for (const [name, value] of Object.entries(allowedHeaders(decision, '-webhook'))) res.setHeader(name, value);
  }
}
