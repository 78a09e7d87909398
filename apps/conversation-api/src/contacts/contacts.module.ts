import { Module } from '@nestjs/common';
import { AttributeDefinitionsRepository } from './attribute-definitions.repository';
import { ContactsRepository } from './contacts.repository';

/** The contacts aggregate's data; the HTTP surface is ContactsApiModule (it also reads conversations). */
@Module({ providers: [ContactsRepository, AttributeDefinitionsRepository], exports: [ContactsRepository, AttributeDefinitionsRepository] })
export class ContactsModule {}
