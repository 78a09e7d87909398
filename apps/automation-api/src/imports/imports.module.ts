import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AutomationsModule } from '../automations/automations.module';
import { ContactsModule } from '../contacts/contacts.module';
import { EventsModule } from '../events/events.module';
import { ImportsController } from './imports.controller';
import { ImportsService } from './imports.service';

@Module({
  imports: [AccountsModule, AutomationsModule, ContactsModule, EventsModule],
  controllers: [ImportsController],
  providers: [ImportsService],
})
export class ImportsModule {}
