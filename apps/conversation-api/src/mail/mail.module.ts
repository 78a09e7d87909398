import { Module } from '@nestjs/common';
import { MailerService } from './mailer.service';
import { OutgoingMailsRepository } from './outgoing-mails.repository';

@Module({ providers: [MailerService, OutgoingMailsRepository], exports: [MailerService] })
export class MailModule {}
