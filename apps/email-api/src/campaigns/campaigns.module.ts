import { Module } from '@nestjs/common';
import { UsageModule } from '../usage/usage.module';
import { ContactsModule } from '../contacts/contacts.module';
import { DomainsModule } from '../domains/domains.module';
import { EmailsModule } from '../emails/emails.module';
import { MailEventsModule } from '../mail-events/mail-events.module';
import { SegmentsModule } from '../segments/segments.module';
import { SuppressionsModule } from '../suppressions/suppressions.module';
import { TemplatesModule } from '../templates/templates.module';
import { AbTestWorker } from './ab-test.worker';
import { CampaignFanoutConsumer } from './campaign-fanout.consumer';
import { CampaignMail } from './campaign-mail';
import { CampaignScheduler } from './campaign-scheduler.worker';
import { CampaignsController } from './campaigns.controller';
import { CampaignsRepository } from './campaigns.repository';
import { CampaignsService } from './campaigns.service';
import { CancelCampaign } from './cancel-campaign';
import { CheckCampaignBody } from './check-campaign-body';
import { CreateCampaign } from './create-campaign';
import { DuplicateCampaign } from './duplicate-campaign';
import { FanOutCampaignBatch } from './fan-out-batch';
import { LaunchCampaign } from './launch-campaign';
import { PickAbWinner } from './pick-ab-winner';
import { ReplaceCampaign } from './replace-campaign';
import { SendCampaignTest } from './send-test';

@Module({
  imports: [ContactsModule, DomainsModule, EmailsModule, SegmentsModule, TemplatesModule, SuppressionsModule, MailEventsModule, UsageModule],
  controllers: [CampaignsController],
  providers: [
    CampaignsRepository,
    CampaignsService,
    CampaignMail,
    CheckCampaignBody,
    CreateCampaign,
    ReplaceCampaign,
    DuplicateCampaign,
    LaunchCampaign,
    CancelCampaign,
    SendCampaignTest,
    FanOutCampaignBatch,
    CampaignFanoutConsumer,
    CampaignScheduler,
    PickAbWinner,
    AbTestWorker,
  ],
})
export class CampaignsModule {}
