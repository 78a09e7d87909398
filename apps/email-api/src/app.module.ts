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
import { CampaignsModule } from './campaigns/campaigns.module';
import { DomainsModule } from './domains/domains.module';
import { SegmentsModule } from './segments/segments.module';
import { TemplatesModule } from './templates/templates.module';
import { OAuthModule } from './oauth/oauth.module';
import { ProjectsModule } from './projects/projects.module';
import type { EmailApiConfig } from './config';
import { ConfigController } from './system/config.controller';
import { UsersModule } from './users/users.module';
import { VerifyModule } from './verify/verify.module';

export const EMAIL_MIGRATIONS = [CreateEmailTables1763900000000, AddOAuthLogin1764000000000, AddMarketing1764100000000, DeliverabilityFixes1764200000000];

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
        // The per-project request counters: in Redis when REDIS_URL is set (shared by every replica).
        RateLimitModule.forRoot({ keyPrefix: `${config.REDIS_KEY_PREFIX}rl:` }),
        UsersModule,
        OAuthModule,
        ProjectsModule,
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
      ],
      controllers: [ConfigController],
    };
  }
}
