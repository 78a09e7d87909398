import { Module } from '@nestjs/common';
import { ContactsModule } from '../contacts/contacts.module';
import { SuppressionsController } from './suppressions.controller';
import { SuppressionsRepository } from './suppressions.repository';
import { SuppressionsService } from './suppressions.service';

@Module({ imports: [ContactsModule], controllers: [SuppressionsController], providers: [SuppressionsRepository, SuppressionsService], exports: [SuppressionsService] })
export class SuppressionsModule {}
