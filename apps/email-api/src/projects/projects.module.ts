import { Module } from '@nestjs/common';
import { OptInModule } from '../opt-in/opt-in.module';
import { ProjectStatsRepository } from './project-stats.repository';
import { ProjectsController } from './projects.controller';
import { ProjectsService } from './projects.service';

/** Projects, keys and members: /projects/:id/* (the /users/@me/projects routes live in the users module). */
@Module({
  imports: [OptInModule],
  controllers: [ProjectsController],
  providers: [ProjectsService, ProjectStatsRepository],
  exports: [ProjectsService],
})
export class ProjectsModule {}
