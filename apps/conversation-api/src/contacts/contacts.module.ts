import { Module } from '@nestjs/common';
import { AttributeDefinitionsRepository } from './attribute-definitions.repository';
import { ContactsRepository } from './contacts.repository';
import { ContactsService } from './contacts.service';

/** The contacts aggregate; the HTTP surface is ContactsApiModule (it also reads conversations). */
@Module({ providers: [ContactsRepository, AttributeDefinitionsRepository, ContactsService], exports: [ContactsService] })
export class ContactsModule {}
