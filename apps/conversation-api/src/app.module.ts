import { Module, type DynamicModule } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { DatabaseModule } from '@platform/database';
import { messagingEntities, MessagingModule } from '@platform/messaging';
import { RedisModule } from '@platform/rate-limit';
import { AccountsModule } from './accounts/accounts.module';
import { AuthModule } from './auth/auth.module';
import { ChannelsModule } from './channels/channels.module';
import { EnvelopeInterceptor } from './common/envelope.interceptor';
import type { ConversationApiConfig } from './config';
import { ContactsApiModule } from './contacts/contacts-api.module';
import { ConversationsModule } from './conversations/conversations.module';
import { CreateOutboxTables1795511027418 } from './migrations/1795511027418-CreateOutboxTables';
import { CreateConversationTables1795511100000 } from './migrations/1795511100000-CreateConversationTables';
import { RealtimeEventsModule } from './realtime/realtime-events.module';
import { RealtimeModule } from './realtime/realtime.module';
import { RolesModule } from './roles/roles.module';
import { TeamsModule } from './teams/teams.module';
import { ThrottleModule } from './throttle/throttle.module';
import { UsersModule } from './users/users.module';
import { WebhooksModule } from './webhooks/webhooks.module';

/** Repositories use SQL through Database; the outbox's and inbox's entities only. */
export const CONVERSATION_API_ENTITIES = [...messagingEntities];
export const CONVERSATION_API_MIGRATIONS = [CreateOutboxTables1795511027418, CreateConversationTables1795511100000];

/**
 * Root module, `ConversationApiModule.forRoot(config)`. The throttler's guard is registered before
 * the access guard, so floods are counted before tokens are checked.
 */
@Module({})
export class ConversationApiModule {
  static forRoot(_config: ConversationApiConfig): DynamicModule {
    return {
      module: ConversationApiModule,
      imports: [
        DatabaseModule.forRoot({ entities: CONVERSATION_API_ENTITIES, migrations: CONVERSATION_API_MIGRATIONS }),
        MessagingModule.forRoot({ outbox: true }),
        RedisModule,
        RealtimeEventsModule,
        ThrottleModule,
        AuthModule,
        AccountsModule,
        RolesModule,
        UsersModule,
        TeamsModule,
        ChannelsModule,
        ConversationsModule,
        ContactsApiModule,
        WebhooksModule,
        RealtimeModule,
      ],
      providers: [{ provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor }],
    };
  }
}
