import { Module } from '@nestjs/common';
import { RunsRepository } from './runs.repository';

@Module({ providers: [RunsRepository], exports: [RunsRepository] })
export class RunsModule {}
