import { Module } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module';
import { UsageModule } from '../usage/usage.module';
import { ContactJobsService } from './contact-jobs.service';
import { ContactsController } from './contacts.controller';
import { ContactsRepository } from './contacts.repository';
import { ContactsService } from './contacts.service';
import { SubscriptionEvents } from './subscription-events';

@Module({
  imports: [JobsModule, UsageModule],
  controllers: [ContactsController],
  providers: [ContactsRepository, ContactsService, ContactJobsService, SubscriptionEvents],
  exports: [ContactsService, SubscriptionEvents],
})
export class ContactsModule {}
