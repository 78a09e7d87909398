import { Module, type DynamicModule } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { DatabaseModule } from '@platform/database';
import { messagingEntities, MessagingModule } from '@platform/messaging';
import { RateLimitModule } from '@platform/rate-limit';
import { AccountsModule } from './accounts/accounts.module';
import { AnalyticsModule } from './analytics/analytics.module';
import { AuthModule } from './auth/auth.module';
import { CannedResponsesModule } from './canned-responses/canned-responses.module';
import { ChannelsModule } from './channels/channels.module';
import { EnvelopeInterceptor } from './common/envelope.interceptor';
import { RedisKeyPrefix, RedisKeyPrefixModule } from './common/redis-key-prefix';
import type { ConversationApiConfig } from './config';
import { ContactsApiModule } from './contacts/contacts-api.module';
import { MailInModule } from './mail-in/mail-in.module';
import { ConversationsModule } from './conversations/conversations.module';
import { LabelsModule } from './labels/labels.module';
import { CreateOutboxTables1795511027418 } from './migrations/1795511027418-CreateOutboxTables';
import { CreateConversationTables1795511100000 } from './migrations/1795511100000-CreateConversationTables';
import { IndexChannelMembersByUser1795600000000 } from './migrations/1795600000000-IndexChannelMembersByUser';
import { QueueOutgoingMessages1795600000100 } from './migrations/1795600000100-QueueOutgoingMessages';
import { QueueOutgoingMails1795600000200 } from './migrations/1795600000200-QueueOutgoingMails';
import { CountIgnoredWebhookItems1795600000300 } from './migrations/1795600000300-CountIgnoredWebhookItems';
import { CreateRecipeTables1795851983835 } from './migrations/1795851983835-CreateRecipeTables';
import { SearchMessages1795851977246 } from './migrations/1795851977246-SearchMessages';
import { EmailChannels1795852229581 } from './migrations/1795852229581-EmailChannels';
import { CreateReportingEvents1795853606821 } from './migrations/1795853606821-CreateReportingEvents';
import { RequestRateLimitModule } from './rate-limit/request-rate-limit.module';
import { RealtimeEventsModule } from './realtime/realtime-events.module';
import { RealtimeModule } from './realtime/realtime.module';
import { RecipesModule } from './recipes/recipes.module';
import { RolesModule } from './roles/roles.module';
import { TeamsModule } from './teams/teams.module';
import { UsersModule } from './users/users.module';
import { WebhooksModule } from './webhooks/webhooks.module';

/** Repositories use SQL through Database; the outbox's and inbox's entities only. */
export const CONVERSATION_API_ENTITIES = [...messagingEntities];
export const CONVERSATION_API_MIGRATIONS = [CreateOutboxTables1795511027418, CreateConversationTables1795511100000, IndexChannelMembersByUser1795600000000, QueueOutgoingMessages1795600000100, QueueOutgoingMails1795600000200, CountIgnoredWebhookItems1795600000300, SearchMessages1795851977246, CreateRecipeTables1795851983835, EmailChannels1795852229581, CreateReportingEvents1795853606821];

/**
 * Root module, `ConversationApiModule.forRoot(config)`. The request rate limit's guard is registered
 * before the access guard, so floods are counted before tokens are checked. Rate-limit counters live
 * under `<REDIS_KEY_PREFIX>rl:` (the prefix resolved at start: RedisKeyPrefix).
 */
@Module({})
export class ConversationApiModule {
  static forRoot(_config: ConversationApiConfig): DynamicModule {
    return {
      module: ConversationApiModule,
      imports: [
        DatabaseModule.forRoot({ entities: CONVERSATION_API_ENTITIES, migrations: CONVERSATION_API_MIGRATIONS }),
        MessagingModule.forRoot({ outbox: true }),
        RedisKeyPrefixModule,
        RateLimitModule.forRootAsync({ inject: [RedisKeyPrefix], useFactory: (prefix: RedisKeyPrefix) => ({ keyPrefix: `${prefix.value}rl:` }) }),
        RealtimeEventsModule,
        RequestRateLimitModule,
        AuthModule,
        AccountsModule,
        RolesModule,
        UsersModule,
        TeamsModule,
        ChannelsModule,
        ConversationsModule,
        ContactsApiModule,
        WebhooksModule,
        MailInModule,
        AnalyticsModule,
        RealtimeModule,
        LabelsModule,
        CannedResponsesModule,
        RecipesModule,
      ],
      providers: [{ provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor }],
    };
  }
}
