import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthModule } from '../auth/auth.module';
import { ChannelsModule } from '../channels/channels.module';
import { RequestRateLimitGuard } from './request-rate-limit.guard';
import { WebhookLimits } from './webhook-limits';

/**
 * The request limits (RequestRateLimitGuard) on the app's `RateLimiter`, which the root module
 * provides with `RateLimitModule.forRootAsync` (keys `<REDIS_KEY_PREFIX>rl:api:…` and `…rl:webhook:…`).
 * Imported before AuthModule, so its guard runs before the access guard.
 */
@Module({
  imports: [AuthModule, ChannelsModule],
  providers: [WebhookLimits, { provide: APP_GUARD, useClass: RequestRateLimitGuard }],
  exports: [WebhookLimits],
})
export class RequestRateLimitModule {}
