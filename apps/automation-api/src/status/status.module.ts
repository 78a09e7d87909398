import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AutomationsModule } from '../automations/automations.module';
import { CommentPollerModule } from '../comment-poller/comment-poller.module';
import { ContactsModule } from '../contacts/contacts.module';
import { EngineModule } from '../engine/engine.module';
import { RunsModule } from '../runs/runs.module';
import { StatusController } from './status.controller';
import { StatusService } from './status.service';
import { SubscriptionChecksRepository } from './subscription-checks.repository';
import { SubscriptionHealthWorker } from './subscription-health.worker';

@Module({
  imports: [AccountsModule, AutomationsModule, CommentPollerModule, ContactsModule, EngineModule, RunsModule],
  controllers: [StatusController],
  providers: [StatusService, SubscriptionChecksRepository, SubscriptionHealthWorker],
  exports: [SubscriptionHealthWorker],
})
export class StatusModule {}
