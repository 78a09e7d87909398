import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AutomationsModule } from '../automations/automations.module';
import { ContactsModule } from '../contacts/contacts.module';
import { RunsModule } from '../runs/runs.module';
import { StatusController } from './status.controller';
import { StatusService } from './status.service';

@Module({
  imports: [AccountsModule, AutomationsModule, ContactsModule, RunsModule],
  controllers: [StatusController],
  providers: [StatusService],
})
export class StatusModule {}
