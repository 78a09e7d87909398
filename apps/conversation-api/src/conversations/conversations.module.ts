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
import { InboundService } from './inbound.service';
import { MessageDelivery } from './message-delivery';
import { MessageDeliveryWorker } from './message-delivery.worker';
import { MessagesRepository } from './messages.repository';
import { SnoozeWorker } from './snooze.worker';

@Module({
  imports: [AccountsModule, ChannelsModule, ContactsModule, UsersModule, TeamsModule, MediaModule],
  controllers: [ConversationsController],
  providers: [ConversationsRepository, MessagesRepository, ConversationsService, InboundService, SnoozeWorker, MessageDelivery, MessageDeliveryWorker],
  exports: [InboundService, ConversationsService],
})
export class ConversationsModule {}
