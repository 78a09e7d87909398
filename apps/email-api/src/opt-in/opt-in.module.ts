import { Module } from '@nestjs/common';
import { ContactsModule } from '../contacts/contacts.module';
import { DomainsModule } from '../domains/domains.module';
import { EmailsModule } from '../emails/emails.module';
import { SuppressionsModule } from '../suppressions/suppressions.module';
import { TemplatesModule } from '../templates/templates.module';
import { ConfirmController } from './confirm.controller';
import { ConfirmSubscription } from './confirm-subscription';
import { ConfirmationMails } from './confirmation-mails';
import { ConfirmationWorker } from './confirmation.worker';
import { OptInLinks } from './opt-in-links';
import { OptInSettingsService } from './opt-in-settings.service';
import { OptInRepository } from './opt-in.repository';
import { SendConfirmations } from './send-confirmations';

/**
 * Double opt-in: the project setting, the confirmation mails (queued by a worker from the contacts
 * that signups marked due) and the public confirmation page. Which contacts are pending is decided by
 * the contacts feature's upsert, in the same statement as the signup.
 */
@Module({
  imports: [ContactsModule, DomainsModule, EmailsModule, SuppressionsModule, TemplatesModule],
  controllers: [ConfirmController],
  providers: [OptInRepository, OptInSettingsService, OptInLinks, ConfirmationMails, SendConfirmations, ConfirmationWorker, ConfirmSubscription],
  exports: [OptInSettingsService],
})
export class OptInModule {}
