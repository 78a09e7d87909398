import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CreateTaskDto, ListTasksQueryDto, UpdateTaskDto } from './dto/task.dto';
import { TasksService, type Task } from './tasks.service';
import { ApiKeyDocs } from '../common/api-key';

const uuid = new ParseUUIDPipe();

/**
 * Tasks (the spec shows neither their fields nor their routes: the shape and routes follow Archon's
 * task API). README "Projects and tasks" lists the fields.
 */
@ApiTags('tasks')
@ApiKeyDocs()
@Controller('api/tasks')
export class TasksController {
  constructor(private readonly tasks: TasksService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Create a task',
    description:
      'Task fields: `id, project_id, parent_task_id, title, description, status (todo|doing|review|done), assignee ("User" by default), task_order, feature, sources [{source_id, title, url?, relevance?}], code_examples [{code_example_id?, source_id?, file?, function?, purpose?}], archived, archived_at, archived_by, created_at, updated_at`. ' +
      '`task_order` is the position within the project\'s status column (0 first): omitted, last; given, the tasks at and after it move down one. Sources and code examples must exist (400). Answers 201 `{success, message, task}`; the project\'s room gets `task_created`.',
  })
  async create(@Body() dto: CreateTaskDto): Promise<{ success: boolean; message: string; task: Task }> {
    return { success: true, message: 'Task created', task: await this.tasks.create(dto) };
  }

  @Get()
  @ApiOperation({
    summary: 'List tasks',
    description: '`{success, tasks, pagination: {total, page, per_page, pages}}`; filters `project_id`, `status`, `assignee`, `feature`, `parent_task_id`, `include_archived` (false), `include_closed` (true; false leaves out `done`).',
  })
  async list(@Query() q: ListTasksQueryDto): Promise<{ success: boolean; tasks: Task[]; pagination: { total: number; page: number; per_page: number; pages: number } }> {
    const { tasks, total, page, perPage } = await this.tasks.list(q);
    return { success: true, tasks, pagination: { total, page, per_page: perPage, pages: Math.ceil(total / perPage) } };
  }

  @Get(':task_id')
  @ApiOperation({ summary: 'Get a task', description: '`{success, task}` (archived ones too); 404 `{error: "Task not found"}`.' })
  async get(@Param('task_id', uuid) id: string): Promise<{ success: boolean; task: Task }> {
    return { success: true, task: await this.tasks.get(id) };
  }

  @Put(':task_id')
  @ApiOperation({
    summary: 'Update a task',
    description:
      'Partial. A new `status` moves the task to that column (last, or at `task_order`); `task_order` alone moves it within its column; the other tasks are renumbered so positions stay 0, 1, …. `{"archived": false}` restores an archived task (last in its column). `parent_task_id` must be a task of the same project and make no cycle. `{success, message, task}`; the project\'s room gets `task_updated`.',
  })
  async update(@Param('task_id', uuid) id: string, @Body() dto: UpdateTaskDto): Promise<{ success: boolean; message: string; task: Task }> {
    return { success: true, message: 'Task updated', task: await this.tasks.update(id, dto) };
  }

  @Delete(':task_id')
  @ApiOperation({ summary: 'Archive a task', description: 'Deleting archives (it leaves its column; `include_archived=true` still lists it): `{success, message, task_id}`; 409 when already archived; the project\'s room gets `task_archived`.' })
  async archive(@Param('task_id', uuid) id: string): Promise<{ success: boolean; message: string; task_id: string }> {
    await this.tasks.archive(id);
    return { success: true, message: 'Task archived', task_id: id };
  }
}
