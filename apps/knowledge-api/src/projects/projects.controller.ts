import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Put, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CreateProject } from './create-project';
import { CreateProjectDto, ProjectCreationStartedDto, UpdateProjectDto } from './dto/project.dto';
import { ProjectTasksQueryDto } from './dto/task.dto';
import { ProjectsService } from './projects.service';
import type { Feature, Project } from './projects.types';
import { ProjectsHealth } from './projects-health.service';
import { TasksService, type Task } from './tasks.service';
import { ApiKeyDocs } from '../common/api-key';

const uuid = new ParseUUIDPipe();

@ApiTags('projects')
@ApiKeyDocs()
@Controller('api/projects')
export class ProjectsController {
  constructor(
    private readonly projects: ProjectsService,
    private readonly creation: CreateProject,
    private readonly tasks: TasksService,
    private readonly health: ProjectsHealth,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'List projects',
    description: 'Every project (pinned first, then newest first) with `technical_sources`/`business_sources` as `{source_id, title}`.',
  })
  list(): Promise<Project[]> {
    return this.projects.list();
  }

  @Post()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Create a project (in the background)',
    description:
      'Checks the body (title required; linked sources must exist: 400 naming the unknown ones) and queues the creation; answers `{progress_id, status: "started", message, project_id}` with **202** (the spec gives no code; `project_id` is not in the spec). ' +
      'The job links the sources, drafts features and tasks with the chat model when LLM_URL is set, stores the PRD as a document (`document_type` `prd`) and the project. ' +
      'Progress: `GET /api/progress/{progress_id}`, or the root Socket.IO namespace (`join_progress` {progress_id}): `progress_update` (status `analyzing` 0–10, `source_linking` 10–20, `ai_generation` 20–70, `generating_docs` 70–80, `saving_to_database` 80–95, `finalization` 95–100, with `message`), then `progress_complete` with `result` `{project_id, project, tasks_created, features_drafted, drafted}` or `progress_error` with `error`. ' +
      'Clients in the project\'s room (`join_project` {project_id}) also get `project_created`.',
  })
  @ApiAcceptedResponse({ type: ProjectCreationStartedDto })
  async create(@Body() dto: CreateProjectDto): Promise<ProjectCreationStartedDto> {
    const { progressId, projectId } = await this.creation.queue(dto);
    return {
      progress_id: progressId,
      status: 'started',
      message: 'Project creation started: follow it with GET /api/progress/{progress_id} or Socket.IO join_progress',
      project_id: projectId,
    };
  }

  @Get('health')
  @ApiOperation({ summary: 'Projects health', description: '`{status: "healthy" | "schema_missing", service: "projects", schema: {projects_table, tasks_table, valid}}` (the schema part is not in the spec).' })
  projectsHealth(): Promise<Record<string, unknown>> {
    return this.health.check();
  }

  @Get(':project_id')
  @ApiOperation({ summary: 'Get a project', description: '`{success, project}`; 404 `{error: "Project not found"}`.' })
  async get(@Param('project_id', uuid) id: string): Promise<{ success: boolean; project: Project }> {
    return { success: true, project: await this.projects.get(id) };
  }

  @Put(':project_id')
  @ApiOperation({
    summary: 'Update a project',
    description:
      'Partial: only the given fields change. `features`/`docs` replace the lists (features and documents without `id` get one); each changed JSON field (`docs`, `features`, `data`, `prd`) records a version; given source lists replace the linked ones of that kind. Answers the updated project; the project\'s room gets `project_updated`.',
  })
  update(@Param('project_id', uuid) id: string, @Body() dto: UpdateProjectDto): Promise<Project> {
    return this.projects.update(id, dto);
  }

  @Delete(':project_id')
  @ApiOperation({ summary: 'Delete a project and all its tasks', description: '`{success, message, project_id, deleted_tasks}` (archived tasks included); its documents, versions and source links go with it.' })
  async delete(@Param('project_id', uuid) id: string): Promise<{ success: boolean; message: string; project_id: string; deleted_tasks: number }> {
    const { deletedTasks } = await this.projects.delete(id);
    return { success: true, message: 'Project deleted', project_id: id, deleted_tasks: deletedTasks };
  }

  @Get(':project_id/features')
  @ApiOperation({ summary: 'A project\'s features', description: '`{success, features, count}` (`count` is not in the spec).' })
  async features(@Param('project_id', uuid) id: string): Promise<{ success: boolean; features: Feature[]; count: number }> {
    const features = await this.projects.features(id);
    return { success: true, features, count: features.length };
  }

  @Get(':project_id/tasks')
  @ApiOperation({
    summary: 'A project\'s tasks',
    description: 'An array of tasks ordered by status (todo, doing, review, done) and `task_order`; archived ones only with `include_archived=true`. Filters `status`, `assignee`, `feature`, `parent_task_id`.',
  })
  projectTasks(@Param('project_id', uuid) id: string, @Query() q: ProjectTasksQueryDto): Promise<Task[]> {
    return this.tasks.forProject(id, q);
  }
}
