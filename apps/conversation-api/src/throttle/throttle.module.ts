import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule, type ThrottlerStorage } from '@nestjs/throttler';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import { bearerToken } from '@platform/auth';
import { REDIS_CLIENT, RedisModule } from '@platform/rate-limit';
import type { Request } from 'express';
import type Redis from 'ioredis';
import { AccessTokens } from '../auth/access-tokens';
import { AuthModule } from '../auth/auth.module';
import { ChannelsModule } from '../channels/channels.module';
import { ChannelsRepository } from '../channels/channels.repository';
import { ConversationApiConfig } from '../config';
import { ConversationThrottlerGuard, isWebhookRoute, ONE_MINUTE_MS } from './throttle';

/**
 * The spec's limit: CONVERSATION_RATE_LIMIT_PER_MINUTE (100) requests per minute per client, the
 * client being the user of a valid access token, else the address; webhook receivers count per
 * tenant instead (CONVERSATION_WEBHOOK_RATE_LIMIT_PER_MINUTE). Counters live in Redis when REDIS_URL
 * is set, so every replica shares them; in memory otherwise (one process).
 */
@Module({
  imports: [
    RedisModule,
    ChannelsModule,
    ThrottlerModule.forRootAsync({
      imports: [ChannelsModule, AuthModule],
      inject: [ConversationApiConfig, REDIS_CLIENT, AccessTokens, ChannelsRepository],
      useFactory: (config: ConversationApiConfig, redis: Redis | null, tokens: AccessTokens, channels: ChannelsRepository) => {
        const storage: ThrottlerStorage | undefined = redis ? new ThrottlerStorageRedisService(redis) : undefined;
        return {
          storage,
          throttlers: [
            {
              name: 'default',
              ttl: ONE_MINUTE_MS,
              limit: config.CONVERSATION_RATE_LIMIT_PER_MINUTE,
              getTracker: async (req: Record<string, unknown>) => {
                const token = bearerToken(req as never);
                const claims = token ? await tokens.verify(token) : null;
                return claims ? `user:${claims.sub}` : `ip:${(req as unknown as Request).ip ?? 'unknown'}`;
              },
            },
            {
              name: 'webhook',
              ttl: ONE_MINUTE_MS,
              limit: config.CONVERSATION_WEBHOOK_RATE_LIMIT_PER_MINUTE,
              skipIf: (context) => !isWebhookRoute(context),
              getTracker: async (req: Record<string, unknown>) => {
                const raw = (req as unknown as Request).params?.channelId;
                const channelId = (typeof raw === 'string' ? raw : '').slice(0, 64);
                const accountId = await channels.accountOf(channelId);
                return accountId ? `account:${accountId}` : `channel:${channelId}`;
              },
            },
          ],
        };
      },
    }),
  ],
  providers: [{ provide: APP_GUARD, useClass: ConversationThrottlerGuard }],
})
export class ThrottleModule {}
