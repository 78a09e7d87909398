import { Module } from '@nestjs/common';
import { ContactsModule } from '../contacts/contacts.module';
import { DomainsModule } from '../domains/domains.module';
import { EmailsModule } from '../emails/emails.module';
import { SuppressionsModule } from '../suppressions/suppressions.module';
import { TemplatesModule } from '../templates/templates.module';
import { ExecutionsWorker } from './engine/executions.worker';
import { SendEmailStep } from './engine/send-email-step';
import { WebhookStep } from './engine/webhook-step';
import { WorkflowEngine } from './engine/workflow-engine';
import { WorkflowTriggersConsumer } from './engine/workflow-triggers.consumer';
import { ExecutionsController } from './executions.controller';
import { ExecutionsRepository } from './executions.repository';
import { ExecutionsService } from './executions.service';

/**
 * Workflow executions and the engine. A module of its own (inside the workflows feature) so that
 * the features that ask about executions — the workflow definitions, segments (delete), activity
 * (upcoming) — import it without importing the definitions' module and its dependencies (no cycle).
 */
@Module({
  imports: [ContactsModule, DomainsModule, EmailsModule, SuppressionsModule, TemplatesModule],
  controllers: [ExecutionsController],
  providers: [ExecutionsRepository, ExecutionsService, WorkflowEngine, ExecutionsWorker, SendEmailStep, WebhookStep, WorkflowTriggersConsumer],
  exports: [ExecutionsService],
})
export class ExecutionsModule {}
