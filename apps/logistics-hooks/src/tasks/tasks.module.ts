import { Module, type DynamicModule } from '@nestjs/common';
import type { LogisticsHooksConfig } from '../config';
import { RecapsRepository } from './recaps.repository';
import { tasksControllerAt } from './tasks.controller';
import { TaskRefinementWorker } from './task-refinement.worker';
import { TasksRepository } from './tasks.repository';
import { TasksService } from './tasks.service';

/** `POST /{prefix}-tasks`: emails classified into tasks, and the task actions. */
@Module({})
export class TasksModule {
  static forRoot(config: LogisticsHooksConfig): DynamicModule {
    return {
      module: TasksModule,
      controllers: [tasksControllerAt(config.LOGISTICS_PREFIX)],
      providers: [TasksService, TasksRepository, RecapsRepository, TaskRefinementWorker],
      exports: [TasksService],
    };
  }
}
