import { Module } from '@nestjs/common';
import { RunsRepository } from './runs.repository';
import { RunsService } from './runs.service';

@Module({ providers: [RunsRepository, RunsService], exports: [RunsService] })
export class RunsModule {}
