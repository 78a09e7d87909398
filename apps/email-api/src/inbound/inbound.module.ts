import { Module } from '@nestjs/common';
import { EmailsModule } from '../emails/emails.module';
import { MailEventsModule } from '../mail-events/mail-events.module';
import { DomainsModule } from '../domains/domains.module';
import { InboundController } from './inbound.controller';
import { InboundDelivery } from './inbound-delivery';
import { InboundMessagesRepository } from './inbound-messages.repository';
import { InboundMessagesService } from './inbound-messages.service';
import { MailAuthChecker } from './mail-auth';
import { RecordFeedback } from './record-feedback';
import { SmtpReceiver } from './smtp-receiver';
import { StoreInboundMessage } from './store-inbound-message';

/**
 * The inbound SMTP receiver: bounces and feedback reports at the return paths, mail for the
 * projects' verified domains (stored, authenticated, threaded), and the routes that read it.
 */
@Module({
  imports: [EmailsModule, MailEventsModule, DomainsModule],
  controllers: [InboundController],
  providers: [InboundDelivery, RecordFeedback, SmtpReceiver, StoreInboundMessage, InboundMessagesRepository, InboundMessagesService, MailAuthChecker],
  exports: [RecordFeedback, SmtpReceiver],
})
export class InboundModule {}
