import { Module } from '@nestjs/common';
import { ChannelsModule } from '../channels/channels.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { MediaModule } from '../media/media.module';
import { MailIn } from './mail-in';
import { MailInWorker } from './mail-in.worker';

/** Email channels' incoming mail: the IMAP poller and what turns a mail into a message. */
@Module({
  imports: [ChannelsModule, ConversationsModule, MediaModule],
  providers: [MailIn, MailInWorker],
  exports: [MailIn, MailInWorker],
})
export class MailInModule {}
