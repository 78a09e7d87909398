import { Module } from '@nestjs/common';
import { UsageModule } from '../usage/usage.module';
import { ContactsModule } from '../contacts/contacts.module';
import { JobsModule } from '../jobs/jobs.module';
import { AudienceRepository } from './audience.repository';
import { SegmentsController } from './segments.controller';
import { SegmentsRepository } from './segments.repository';
import { SegmentsService } from './segments.service';
import { ExecutionsModule } from '../workflows/executions.module';

@Module({
  imports: [ContactsModule, JobsModule, UsageModule, ExecutionsModule],
  controllers: [SegmentsController],
  providers: [SegmentsRepository, AudienceRepository, SegmentsService],
  exports: [SegmentsService],
})
export class SegmentsModule {}
