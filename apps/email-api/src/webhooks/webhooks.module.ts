import { Module } from '@nestjs/common';
import { EmailsModule } from '../emails/emails.module';
import { InboundModule } from '../inbound/inbound.module';
import { SesWebhookController } from './ses-webhook.controller';
import { SesWebhookService } from './ses-webhook.service';
import { SnsClient } from './sns-client';

/** Provider event webhooks: Amazon SES through SNS. */
@Module({
  imports: [EmailsModule, InboundModule],
  controllers: [SesWebhookController],
  providers: [SesWebhookService, SnsClient],
})
export class WebhooksModule {}
