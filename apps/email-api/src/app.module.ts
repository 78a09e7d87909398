import { Module, type DynamicModule } from '@nestjs/common';
import { DatabaseModule } from '@platform/database';
import { MessagingModule, messagingEntities } from '@platform/messaging';
import { RateLimitModule } from '@platform/rate-limit';
import { AccessModule } from './access/access.module';
import { ActivityModule } from './activity/activity.module';
import { AutomationModule } from './automation/automation.module';
import { ContactsModule } from './contacts/contacts.module';
import { EmailsModule } from './emails/emails.module';
import { EventsModule } from './events/events.module';
import { CreateEmailTables1763900000000 } from './migrations/1763900000000-CreateEmailTables';
import { AddOAuthLogin1764000000000 } from './migrations/1764000000000-AddOAuthLogin';
import { AddMarketing1764100000000 } from './migrations/1764100000000-AddMarketing';
import { DeliverabilityFixes1764200000000 } from './migrations/1764200000000-DeliverabilityFixes';
import { MailEvents1795851988923 } from './migrations/1795851988923-MailEvents';
import { MailEventsModule } from './mail-events/mail-events.module';
import { SuppressionsModule } from './suppressions/suppressions.module';
import { TrackingModule } from './tracking/tracking.module';
import { AnalyticsModule } from './analytics/analytics.module';
import { ProviderMessageIds1795852118751 } from './migrations/1795852118751-ProviderMessageIds';
import { InboundMessages1795852724313 } from './migrations/1795852724313-InboundMessages';
import { SendThrottle1795853207750 } from './migrations/1795853207750-SendThrottle';
import { Uploads1795862000000 } from './migrations/1795862000000-Uploads';
import { CampaignAbTests1795863000000 } from './migrations/1795863000000-CampaignAbTests';
import { DoubleOptIn1795864000000 } from './migrations/1795864000000-DoubleOptIn';
import { MailEventsWrites1795864500000 } from './migrations/1795864500000-MailEventsWrites';
import { Workflows1795860000000 } from './migrations/1795860000000-Workflows';
import { WorkflowExecutions1795860100000 } from './migrations/1795860100000-WorkflowExecutions';
import { Billing1795861000000 } from './migrations/1795861000000-Billing';
import { BillingModule } from './billing/billing.module';
import { InboundModule } from './inbound/inbound.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { SendingModule } from './sending/sending.module';
import { CampaignsModule } from './campaigns/campaigns.module';
import { DomainsModule } from './domains/domains.module';
import { SegmentsModule } from './segments/segments.module';
import { TemplatesModule } from './templates/templates.module';
import { OAuthModule } from './oauth/oauth.module';
import { ProjectsModule } from './projects/projects.module';
import { OptInModule } from './opt-in/opt-in.module';
import type { EmailApiConfig } from './config';
import { ConfigController } from './system/config.controller';
import { UsersModule } from './users/users.module';
import { VerifyModule } from './verify/verify.module';
import { WorkflowsModule } from './workflows/workflows.module';
import { UploadsModule } from './uploads/uploads.module';

export const EMAIL_MIGRATIONS = [CreateEmailTables1763900000000, AddOAuthLogin1764000000000, AddMarketing1764100000000, DeliverabilityFixes1764200000000, MailEvents1795851988923, ProviderMessageIds1795852118751, InboundMessages1795852724313, SendThrottle1795853207750, Workflows1795860000000, WorkflowExecutions1795860100000, Billing1795861000000, Uploads1795862000000, CampaignAbTests1795863000000, DoubleOptIn1795864000000, MailEventsWrites1795864500000];

@Module({})
export class EmailApiModule {
  static forRoot(config: EmailApiConfig): DynamicModule {
    return {
      module: EmailApiModule,
      imports: [
        // Repositories use raw SQL through Database; the messaging outbox and inbox bring their entities.
        DatabaseModule.forRoot({ entities: [...messagingEntities], migrations: EMAIL_MIGRATIONS }),
        MessagingModule.forRoot({ outbox: true }),
        AccessModule,
        // Global: the monthly caps (BillingUsage) are taken wherever mail is written.
        BillingModule,
        // The per-project request counters: in Redis when REDIS_URL is set (shared by every replica).
        RateLimitModule.forRoot({ keyPrefix: `${config.REDIS_KEY_PREFIX}rl:` }),
        UsersModule,
        OAuthModule,
        ProjectsModule,
        OptInModule,
        ContactsModule,
        EventsModule,
        EmailsModule,
        VerifyModule,
        ActivityModule,
        AutomationModule,
        DomainsModule,
        TemplatesModule,
        SegmentsModule,
        CampaignsModule,
        SuppressionsModule,
        MailEventsModule,
        TrackingModule,
        AnalyticsModule,
        InboundModule,
        WebhooksModule,
        SendingModule,
        UploadsModule,
        WorkflowsModule,
      ],
      controllers: [ConfigController],
    };
  }
}
