import { Body, Controller, HttpCode, Post, Res, type Type } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBody, ApiConflictResponse, ApiCreatedResponse, ApiExtraModels, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { ApiError } from '@platform/errors';
import { PlatformValidationPipe } from '@platform/platform';
import type { Response } from 'express';
import { ApiKeyAccess } from '../access/api-key.guard';
import {
  ACTION_DTOS,
  BulkUpdateTasksDto,
  ClassifyEmailDto,
  ListTasksDto,
  PlainActionDto,
  RecapDto,
  TASK_ACTIONS,
  TaskIdDto,
  UpdateTaskDto,
  type TaskAction,
} from './dto/task-requests.dto';
import { TasksService } from './tasks.service';

const validation = new PlatformValidationPipe();

async function validated<T>(dto: Type<T>, body: Record<string, unknown>): Promise<T> {
  return (await validation.transform(body, { type: 'body', metatype: dto })) as T;
}

const DESCRIPTION = [
  'One webhook for emails and task operations (`api_key` in the body on every call).',
  '',
  '**Without `action`** the body is an email `{api_key, from, subject, body, received_at?, message_id?}`: it becomes a PENDING task (201) with',
  '`priority` (HIGH, MEDIUM, LOW), `category` (MISSING_DOCS, PAYMENT, TRACKING, CUSTOMS, GENERAL), `sentiment` (NEUTRAL, URGENT, FRUSTRATED),',
  '`summary`, `action_required`, `due_suggestion` (ISO date: HIGH same day, MEDIUM next business day, LOW three business days) and',
  '`shipment_ref` (every container number with a valid ISO 6346 check digit, bill of lading and booking number found, comma-separated; also',
  'listed by kind in `references`). The rules classify at once; with `LLM_URL` the model refines the task in the background (`refinement`:',
  '`pending` → `done`, or `failed` after 3 attempts): the fields of its answer the rules accept replace theirs (`classified_by: model`) and',
  '`logistics.task_classified` is emitted. At most 500 tasks are kept: the oldest are removed in the transaction that inserts the new one',
  '(`evicted` says how many). **Retries**: the same `message_id` (else the same sender, subject, body and received_at) returns the task',
  'already made with 200 and `deduplicated: true`; nothing is stored again.',
  '',
  '**With `action`** (answers 200): `list` (`status`, `priority`, `category`, `search`, `limit` 1–500, default 50; newest first) → `{tasks, count, total}`;',
  '`get` (`task_id`) → `{task}`; `update` (`task_id`, `status`, `assigned_to`, `notes`, `priority`) → `{task}`; `delete` (`task_id`) → `{deleted}`;',
  '`stats` → `{total, by_status, by_priority, by_category}`; `bulk_update` (`task_ids`, `status`, `assigned_to`; all or nothing) → `{updated, tasks}`;',
  '`recap` (`emails: [{from, subject, body}]`, 1–100) stores a briefing (model when `LLM_URL` answers, else extractive) → `{recap}`; `get_recap` → `{recap}` (null when none).',
  '',
  '**Status moves**: PENDING → IN_PROGRESS, IN_PROGRESS → DONE, PENDING → DONE, and the current status again; every other move is refused',
  'with 409 `INVALID_STATUS_TRANSITION` and nothing changes. Unknown values: 422 `VALIDATION_ERROR`; unknown ids: 404 `TASK_NOT_FOUND`.',
].join('\n');

/**
 * `POST /{prefix}-tasks`. The path comes from LOGISTICS_PREFIX, so {@link TasksModule} registers a
 * subclass with `@Controller('<prefix>-tasks')`; this class carries the handler.
 */
@ApiTags('tasks')
@ApiExtraModels(ClassifyEmailDto, ListTasksDto, TaskIdDto, UpdateTaskDto, BulkUpdateTasksDto, RecapDto, PlainActionDto)
export class TasksController {
  constructor(private readonly tasks: TasksService) {}

  @Post()
  @HttpCode(200)
  @ApiKeyAccess()
  @ApiOperation({ summary: 'Classify an email into a task, or run a task action', description: DESCRIPTION })
  @ApiBody({
    schema: {
      oneOf: [ClassifyEmailDto, ListTasksDto, TaskIdDto, UpdateTaskDto, BulkUpdateTasksDto, RecapDto, PlainActionDto].map((m) => ({ $ref: getSchemaPath(m) })),
    },
  })
  @ApiOkResponse({ description: 'The action\'s result with `success: true`; a retry of a known email: `deduplicated: true`' })
  @ApiCreatedResponse({ description: 'A new task: `{success, task, evicted, deduplicated: false}`' })
  @ApiBadRequestResponse({ description: '`UNKNOWN_ACTION`, `INVALID_BODY`, `NOTHING_TO_UPDATE`' })
  @ApiNotFoundResponse({ description: '`TASK_NOT_FOUND`' })
  @ApiConflictResponse({ description: '`INVALID_STATUS_TRANSITION`' })
  async handle(@Body() body: unknown, @Res({ passthrough: true }) res: Response): Promise<Record<string, unknown>> {
    if (!body || typeof body !== 'object' || Array.isArray(body)) {
      throw new ApiError(400, 'INVALID_BODY', 'The body must be a JSON object', { suggestion: 'Send Content-Type: application/json with an object body.' });
    }
    const fields = body as Record<string, unknown>;
    if (fields.action === undefined) {
      const { task, evicted, deduplicated } = await this.tasks.classify(await validated(ClassifyEmailDto, fields));
      res.status(deduplicated ? 200 : 201);
      return { success: true, task, evicted, deduplicated };
    }
    if (typeof fields.action !== 'string' || !(TASK_ACTIONS as readonly string[]).includes(fields.action)) {
      throw new ApiError(400, 'UNKNOWN_ACTION', `Unknown action ${JSON.stringify(fields.action)}`, {
        suggestion: `Use one of ${TASK_ACTIONS.join(', ')}, or leave action out to classify an email.`,
      });
    }
    const action = fields.action as TaskAction;
    const dto = await validated(ACTION_DTOS[action], fields);
    return { success: true, action, ...(await this.run(action, dto)) };
  }

  private async run(action: TaskAction, dto: unknown): Promise<Record<string, unknown>> {
    switch (action) {
      case 'list': {
        const { tasks, total } = await this.tasks.list(dto as ListTasksDto);
        return { tasks, count: tasks.length, total };
      }
      case 'get':
        return { task: await this.tasks.get((dto as TaskIdDto).task_id) };
      case 'update':
        return { task: await this.tasks.update(dto as UpdateTaskDto) };
      case 'delete':
        await this.tasks.delete((dto as TaskIdDto).task_id);
        return { deleted: (dto as TaskIdDto).task_id };
      case 'stats':
        return { ...(await this.tasks.stats()) };
      case 'bulk_update': {
        const tasks = await this.tasks.bulkUpdate(dto as BulkUpdateTasksDto);
        return { updated: tasks.length, tasks };
      }
      case 'recap':
        return { recap: await this.tasks.recap(dto as RecapDto) };
      case 'get_recap':
        return { recap: await this.tasks.latestRecap() };
    }
  }
}

/** The controller class registered under `/<prefix>-tasks`. */
export function tasksControllerAt(prefix: string): Type<TasksController> {
  @Controller(`${prefix}-tasks`)
  class ConfiguredTasksController extends TasksController {}
  return ConfiguredTasksController;
}
