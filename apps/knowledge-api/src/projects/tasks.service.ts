import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { SourcesService } from '../sources/sources.service';
import type { CreateTaskDto, ListTasksQueryDto, ProjectTasksQueryDto, TaskCodeExampleRefDto, TaskSourceRefDto, UpdateTaskDto } from './dto/task.dto';
import { ProjectsService } from './projects.service';
import type { TaskCodeExampleRef, TaskFilters, TaskRow, TaskSourceRef, TaskStatus } from './projects.types';
import { TasksRepository } from './tasks.repository';

export interface Task extends Omit<TaskRow, 'created_at' | 'updated_at' | 'archived_at'> {
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}

export function presentTask(row: TaskRow): Task {
  return {
    ...row,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
    archived_at: row.archived_at ? new Date(row.archived_at).toISOString() : null,
  };
}

class TaskNotFound extends ApiError {
  constructor(id: string) {
    super(404, 'NOT_FOUND', 'Task not found', { suggestion: `no task ${id}; GET /api/tasks lists them` });
  }
}

/**
 * Tasks of projects. `task_order` is a task's position in its project's status column (0 first),
 * kept dense: inserting at a position moves the tasks at and after it down one, moving a task out
 * of a column (another status, archived) closes its gap. Changes of one project's tasks take the
 * project's lock, so concurrent moves never give two tasks one position. Deleting archives.
 * Events (`task_created`, `task_updated`, `task_archived` with `{project_id, task}`) go to the
 * project's room.
 */
@Injectable()
export class TasksService {
  constructor(
    private readonly tasks: TasksRepository,
    private readonly projects: ProjectsService,
    private readonly sources: SourcesService,
    private readonly transactions: Transactions,
  ) {}

  async create(dto: CreateTaskDto, opts: { emit?: boolean } = {}): Promise<Task> {
    const sources = await this.checkSources(dto.sources ?? []);
    const codeExamples = await this.checkCodeExamples(dto.code_examples ?? []);
    const row = await this.transactions.transaction(async () => {
      await this.projects.assertExists(dto.project_id);
      await this.transactions.lock(`tasks:${dto.project_id}`);
      const status = dto.status ?? 'todo';
      if (dto.parent_task_id) await this.checkParent(dto.project_id, null, dto.parent_task_id);
      const size = await this.tasks.columnSize(dto.project_id, status);
      const order = Math.min(dto.task_order ?? size, size);
      await this.tasks.shift(dto.project_id, status, order, 1);
      return this.tasks.insert(
        {
          id: randomUUID(),
          project_id: dto.project_id,
          parent_task_id: dto.parent_task_id ?? null,
          title: dto.title,
          description: dto.description ?? '',
          status,
          assignee: dto.assignee ?? 'User',
          feature: dto.feature ?? null,
          sources,
          code_examples: codeExamples,
        },
        order,
      );
    });
    const task = presentTask(row);
    if (opts.emit !== false) this.projects.emit(task.project_id, 'task_created', { project_id: task.project_id, task });
    return task;
  }

  async get(id: string): Promise<Task> {
    const row = await this.tasks.find(id);
    if (!row) throw new TaskNotFound(id);
    return presentTask(row);
  }

  async list(q: ListTasksQueryDto): Promise<{ tasks: Task[]; total: number; page: number; perPage: number }> {
    const page = q.page ?? 1;
    const perPage = q.per_page ?? 50;
    const { rows, total } = await this.tasks.list(filters(q), perPage, (page - 1) * perPage);
    return { tasks: rows.map(presentTask), total, page, perPage };
  }

  async forProject(projectId: string, q: ProjectTasksQueryDto): Promise<Task[]> {
    await this.projects.assertExists(projectId);
    const { rows } = await this.tasks.list({ ...filters(q), project_id: projectId }, null, 0);
    return rows.map(presentTask);
  }

  async update(id: string, dto: UpdateTaskDto): Promise<Task> {
    const sources = dto.sources ? await this.checkSources(dto.sources) : undefined;
    const codeExamples = dto.code_examples ? await this.checkCodeExamples(dto.code_examples) : undefined;
    const first = await this.tasks.find(id);
    if (!first) throw new TaskNotFound(id);
    const row = await this.transactions.transaction(async () => {
      await this.transactions.lock(`tasks:${first.project_id}`);
      const current = (await this.tasks.find(id))!;
      if (dto.parent_task_id) await this.checkParent(current.project_id, id, dto.parent_task_id);
      const fields: Record<string, unknown> = {};
      for (const key of ['title', 'description', 'assignee'] as const) if (dto[key] !== undefined) fields[key] = dto[key];
      if (dto.feature !== undefined) fields.feature = dto.feature;
      if (dto.parent_task_id !== undefined) fields.parent_task_id = dto.parent_task_id;
      if (sources) fields.sources = sources;
      if (codeExamples) fields.code_examples = codeExamples;
      const unarchive = dto.archived === false && current.archived;
      const status: TaskStatus = dto.status ?? current.status;
      const moves = unarchive || (!current.archived && (status !== current.status || (dto.task_order !== undefined && dto.task_order !== current.task_order)));
      if (moves) {
        if (!current.archived) await this.tasks.shift(current.project_id, current.status, current.task_order + 1, -1, id);
        // the column without this task
        const size = (await this.tasks.columnSize(current.project_id, status)) - (current.archived || status !== current.status ? 0 : 1);
        const order = Math.min(dto.task_order ?? (status === current.status && !current.archived ? current.task_order : size), size);
        await this.tasks.shift(current.project_id, status, order, 1, id);
        fields.task_order = order;
      }
      if (dto.status !== undefined) fields.status = status;
      if (unarchive) Object.assign(fields, { archived: false, archived_at: null, archived_by: null });
      return (await this.tasks.update(id, fields))!;
    });
    const task = presentTask(row);
    this.projects.emit(task.project_id, 'task_updated', { project_id: task.project_id, task });
    return task;
  }

  /** Archives the task (the spec's delete): it leaves its column; 409 when already archived. */
  async archive(id: string, by = 'api'): Promise<Task> {
    const first = await this.tasks.find(id);
    if (!first) throw new TaskNotFound(id);
    const row = await this.transactions.transaction(async () => {
      await this.transactions.lock(`tasks:${first.project_id}`);
      const current = (await this.tasks.find(id))!;
      if (current.archived) throw new ApiError(409, 'CONFLICT', 'Task already archived', { suggestion: 'PUT {"archived": false} restores it' });
      await this.tasks.shift(current.project_id, current.status, current.task_order + 1, -1, id);
      return (await this.tasks.update(id, { archived: true, archived_at: new Date(), archived_by: by }))!;
    });
    const task = presentTask(row);
    this.projects.emit(task.project_id, 'task_archived', { project_id: task.project_id, task });
    return task;
  }

  /** The parent must be a task of the same project and not the task itself or one of its subtasks. */
  private async checkParent(projectId: string, taskId: string | null, parentId: string): Promise<void> {
    const parent = await this.tasks.find(parentId);
    if (!parent || parent.project_id !== projectId) throw new ApiError(400, 'VALIDATION_FAILED', `parent_task_id ${parentId} is not a task of this project`);
    if (taskId && (await this.tasks.ancestors(parentId)).includes(taskId)) {
      throw new ApiError(400, 'VALIDATION_FAILED', 'parent_task_id would make a cycle (a task cannot be its own ancestor)');
    }
  }

  private async checkSources(refs: TaskSourceRefDto[]): Promise<TaskSourceRef[]> {
    const titles = await this.projects.checkSources([...new Set(refs.map((r) => r.source_id.trim()))]);
    return refs.map((r) => ({
      source_id: r.source_id.trim(),
      title: titles.get(r.source_id.trim())!,
      ...(r.url !== undefined ? { url: r.url } : {}),
      ...(r.relevance !== undefined ? { relevance: r.relevance } : {}),
    }));
  }

  private async checkCodeExamples(refs: TaskCodeExampleRefDto[]): Promise<TaskCodeExampleRef[]> {
    const ids = refs.map((r) => r.code_example_id).filter((x): x is number => x !== undefined);
    const found = await this.sources.existingCodeExamples(ids);
    const missing = ids.filter((i) => !found.has(i));
    if (missing.length) throw new ApiError(400, 'VALIDATION_FAILED', `Unknown code example ids: ${missing.join(', ')}`, { suggestion: 'POST /api/rag/code-examples answers them' });
    if (refs.some((r) => r.code_example_id === undefined && !r.file && !r.function)) {
      throw new ApiError(400, 'VALIDATION_FAILED', 'each code example reference needs code_example_id, file or function');
    }
    return refs.map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)) as TaskCodeExampleRef);
  }
}

function filters(q: ProjectTasksQueryDto & Partial<ListTasksQueryDto>): TaskFilters {
  return {
    project_id: q.project_id,
    status: q.status,
    assignee: q.assignee,
    feature: q.feature,
    parent_task_id: q.parent_task_id,
    include_archived: q.include_archived ?? false,
    include_closed: q.include_closed ?? true,
  };
}
