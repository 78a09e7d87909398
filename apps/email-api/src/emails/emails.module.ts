import { Module } from '@nestjs/common';
import { ContactsModule } from '../contacts/contacts.module';
import { DomainsModule } from '../domains/domains.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { MailEventsModule } from '../mail-events/mail-events.module';
import { SuppressionsModule } from '../suppressions/suppressions.module';
import { TrackingModule } from '../tracking/tracking.module';
import { TemplatesModule } from '../templates/templates.module';
import { EmailsRepository } from './emails.repository';
import { MailQueue } from './mail-queue.service';
import { SendController } from './send.controller';
import { SendService } from './send.service';
import { MimeBuilder } from './mime-builder';
import { SendWorker } from './send.worker';
import { SentMails } from './sent-mails.service';
import { SmtpTransport } from './smtp.transport';
import { UnsubscribeController } from './unsubscribe.controller';
import { UnsubscribeLinks } from './unsubscribe-links';
import { UnsubscribeService } from './unsubscribe.service';

@Module({
  imports: [ContactsModule, IdempotencyModule, DomainsModule, TemplatesModule, SuppressionsModule, MailEventsModule, TrackingModule],
  controllers: [SendController, UnsubscribeController],
  providers: [EmailsRepository, MailQueue, MimeBuilder, SendService, SendWorker, SmtpTransport, UnsubscribeLinks, UnsubscribeService, SentMails],
  exports: [MailQueue, UnsubscribeLinks, SentMails],
})
export class EmailsModule {}
