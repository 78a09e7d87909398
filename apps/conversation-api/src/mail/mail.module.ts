import { Module } from '@nestjs/common';
import { MailWorker } from './mail.worker';
import { MailerService } from './mailer.service';
import { OutgoingMailsRepository } from './outgoing-mails.repository';

@Module({ providers: [MailerService, OutgoingMailsRepository, MailWorker], exports: [MailerService, MailWorker] })
export class MailModule {}
