import { Module, type DynamicModule } from '@nestjs/common';
import { DatabaseModule } from '@platform/database';
import { MessagingModule, messagingEntities } from '@platform/messaging';
import { AccountsModule } from './accounts/accounts.module';
import { AccountEntity } from './accounts/entities/account.entity';
import { ApiKeyEntity } from './accounts/entities/api-key.entity';
import { AutomationsModule } from './automations/automations.module';
import { ClicksModule } from './clicks/clicks.module';
import { AutomationEntity } from './automations/entities/automation.entity';
import { AutomationConfig } from './config';
import { ContactsModule } from './contacts/contacts.module';
import { ContactEntity } from './contacts/entities/contact.entity';
import { EventEntity } from './events/entities/event.entity';
import { EventsModule } from './events/events.module';
import { GraphModule } from './graph/graph.module';
import { InitialSchema1763770000000 } from './migrations/1763770000000-initial-schema';
import { Engine1763780000000 } from './migrations/1763780000000-engine';
import { RateBudgets1763790000000 } from './migrations/1763790000000-rate-budgets';
import { Publishing1763800000000 } from './migrations/1763800000000-publishing';
import { Connection1763810000000 } from './migrations/1763810000000-connection';
import { AccountConnections1795852113755 } from './migrations/1795852113755-account-connections';
import { ConnectModule } from './connect/connect.module';
import { CommentPoller1795852588162 } from './migrations/1795852588162-comment-poller';
import { CommentPollerModule } from './comment-poller/comment-poller.module';
import { SubscriptionChecks1795853359401 } from './migrations/1795853359401-subscription-checks';
import { PeopleAndSends1795852030876 } from './migrations/1795852030876-people-and-sends';
import { BillingModule } from './billing/billing.module';
import { McpModule } from './mcp/mcp.module';
import { PlannedPostsModule } from './planned-posts/planned-posts.module';
import { TokensModule } from './tokens/tokens.module';
import { ReelsModule } from './reels/reels.module';
import { VideosModule } from './videos/videos.module';
import { EngineModule } from './engine/engine.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { SandboxModule } from './sandbox/sandbox.module';
import { isSandbox } from './accounts/sandbox-account';
import { PostsModule } from './posts/posts.module';
import { PreviewModule } from './preview/preview.module';
import { StatusModule } from './status/status.module';
import { ImportsModule } from './imports/imports.module';

/** The entities a repository uses (`db.repository(Entity)`); the engine's tables are read with raw SQL. */
export const ENTITIES = [AccountEntity, ApiKeyEntity, AutomationEntity, ContactEntity, EventEntity, ...messagingEntities];
export const MIGRATIONS = [InitialSchema1763770000000, Engine1763780000000, RateBudgets1763790000000, Publishing1763800000000, Connection1763810000000, PeopleAndSends1795852030876, AccountConnections1795852113755, CommentPoller1795852588162, SubscriptionChecks1795853359401];

@Module({})
export class AutomationApiModule {
  static forRoot(config: AutomationConfig): DynamicModule {
    return {
      module: AutomationApiModule,
      imports: [
        DatabaseModule.forRoot({ entities: ENTITIES, migrations: MIGRATIONS, schema: 'automation' }),
        MessagingModule.forRoot({ outbox: true }),
        GraphModule,
        AccountsModule,
        EventsModule,
        AutomationsModule,
        ContactsModule,
        PostsModule,
        StatusModule,
        PreviewModule,
        ImportsModule,
        EngineModule,
        WebhooksModule,
        ClicksModule,
        VideosModule,
        ReelsModule,
        PlannedPostsModule,
        TokensModule,
        BillingModule,
        McpModule,
        ConnectModule,
        CommentPollerModule,
        // Development without platform credentials: the built-in sandbox (never in production).
        ...(isSandbox(config) ? [SandboxModule] : []),
      ],
    };
  }
}
