import { Module } from '@nestjs/common';
import { ConversationsModule } from '../conversations/conversations.module';
import { ContactWithConversations } from './contact-with-conversations';
import { ContactsController } from './contacts.controller';
import { ContactsModule } from './contacts.module';

/** The contacts routes: the contacts aggregate (ContactsModule) and, for a contact's page, its conversations. */
@Module({ imports: [ContactsModule, ConversationsModule], controllers: [ContactsController], providers: [ContactWithConversations] })
export class ContactsApiModule {}
