import { Module } from '@nestjs/common';
import { ContactsModule } from '../contacts/contacts.module';
import { DomainsModule } from '../domains/domains.module';
import { SegmentsModule } from '../segments/segments.module';
import { TemplatesModule } from '../templates/templates.module';
import { UsageModule } from '../usage/usage.module';
import { CheckWorkflow } from './check-workflow';
import { ExecutionsModule } from './executions.module';
import { WorkflowFields } from './workflow-fields';
import { WorkflowsController } from './workflows.controller';
import { WorkflowsRepository } from './workflows.repository';
import { WorkflowsService } from './workflows.service';

/** Workflow definitions (WorkflowsService) and their executions (ExecutionsService, the engine in engine/). */
@Module({
  imports: [ContactsModule, DomainsModule, SegmentsModule, TemplatesModule, UsageModule, ExecutionsModule],
  controllers: [WorkflowsController],
  providers: [WorkflowsRepository, WorkflowsService, CheckWorkflow, WorkflowFields],
  exports: [WorkflowsService, ExecutionsModule],
})
export class WorkflowsModule {}
