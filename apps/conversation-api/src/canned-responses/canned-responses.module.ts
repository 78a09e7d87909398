import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { ContactsModule } from '../contacts/contacts.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { CannedResponsesController } from './canned-responses.controller';
import { CannedResponsesRepository } from './canned-responses.repository';
import { CannedResponsesService } from './canned-responses.service';
import { RenderCannedResponse } from './render-canned-response';

@Module({
  imports: [ConversationsModule, ContactsModule, AccountsModule],
  controllers: [CannedResponsesController],
  providers: [CannedResponsesRepository, CannedResponsesService, RenderCannedResponse],
  exports: [CannedResponsesService],
})
export class CannedResponsesModule {}
