import { Module } from '@nestjs/common';
import { ConversationsModule } from '../conversations/conversations.module';
import { ContactsController } from './contacts.controller';
import { ContactsModule } from './contacts.module';
import { ContactsService } from './contacts.service';

@Module({ imports: [ContactsModule, ConversationsModule], controllers: [ContactsController], providers: [ContactsService] })
export class ContactsApiModule {}
