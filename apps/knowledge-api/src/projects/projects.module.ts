import { Module } from '@nestjs/common';
import { ChatModule } from '../chat/chat.module';
import { ProgressModule } from '../progress/progress.module';
import { SourcesModule } from '../sources/sources.module';
import { CreateProject } from './create-project';
import { ProjectDocsController } from './project-docs.controller';
import { ProjectDocsService } from './project-docs.service';
import { ProjectsController } from './projects.controller';
import { ProjectsHealth } from './projects-health.service';
import { ProjectsRepository } from './projects.repository';
import { ProjectsService } from './projects.service';
import { TasksController } from './tasks.controller';
import { TasksRepository } from './tasks.repository';
import { TasksService } from './tasks.service';

/** Projects, their documents and versions, and their tasks. CreateProject is the creation job the crawl queue runs. */
@Module({
  imports: [SourcesModule, ProgressModule, ChatModule],
  controllers: [ProjectsController, TasksController, ProjectDocsController],
  providers: [ProjectsRepository, TasksRepository, ProjectsService, TasksService, ProjectDocsService, ProjectsHealth, CreateProject],
  exports: [ProjectsService, TasksService, CreateProject],
})
export class ProjectsModule {}
