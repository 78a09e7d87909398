import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { ChannelsModule } from '../channels/channels.module';
import { ContactsModule } from '../contacts/contacts.module';
import { MediaModule } from '../media/media.module';
import { TeamsModule } from '../teams/teams.module';
import { UsersModule } from '../users/users.module';
import { ConversationsController } from './conversations.controller';
import { ConversationsRepository } from './conversations.repository';
import { ConversationsService } from './conversations.service';
import { ConversationEvents } from './conversation-events';
import { InboundService } from './inbound.service';
import { InboundWriter } from './inbound-writer';
import { MessageDelivery } from './message-delivery';
import { MessageDeliveryWorker } from './message-delivery.worker';
import { MessageBrowsing } from './message-browsing.service';
import { MessagesController } from './messages.controller';
import { MessagesRepository } from './messages.repository';
import { SnoozeWorker } from './snooze.worker';

@Module({
  imports: [AccountsModule, ChannelsModule, ContactsModule, UsersModule, TeamsModule, MediaModule],
  controllers: [ConversationsController, MessagesController],
  providers: [ConversationsRepository, MessagesRepository, ConversationsService, ConversationEvents, InboundService, InboundWriter, SnoozeWorker, MessageDelivery, MessageDeliveryWorker, MessageBrowsing],
  exports: [InboundService, InboundWriter, ConversationsService],
})
export class ConversationsModule {}
