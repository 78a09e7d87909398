import { Module } from '@nestjs/common';
import { JobsRepository } from './jobs.repository';
import { JobsService } from './jobs.service';
import { JobsWorker } from './jobs.worker';

@Module({
  providers: [JobsRepository, JobsService, JobsWorker],
  exports: [JobsService],
})
export class JobsModule {}
