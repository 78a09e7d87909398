import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsISO8601,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { CATEGORIES, MAX_TASKS, PRIORITIES, STATUSES, type Category, type Priority, type TaskStatus } from '../task-values';

export const TASK_ACTIONS = ['list', 'get', 'update', 'delete', 'stats', 'bulk_update', 'recap', 'get_recap'] as const;
export type TaskAction = (typeof TASK_ACTIONS)[number];

class KeyedRequest {
  @ApiProperty({ description: 'LOGISTICS_API_KEY (checked before the body; may also come as X-API-Key)' })
  @IsOptional()
  @IsString()
  api_key?: string;
}

class ActionRequest extends KeyedRequest {
  @ApiProperty({ enum: TASK_ACTIONS })
  @IsIn(TASK_ACTIONS)
  action!: TaskAction;
}

/** Without `action`: an email to classify into a PENDING task. */
export class ClassifyEmailDto extends KeyedRequest {
  @ApiProperty({ example: 'ops@client.example' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(320)
  from!: string;

  @ApiProperty({ example: 'URGENT: container CSQU3054383 held by customs' })
  @IsString()
  @MaxLength(1000)
  subject!: string;

  @ApiProperty({ example: 'Customs is holding the container; we need the pedimento today.' })
  @IsString()
  @MaxLength(100_000)
  body!: string;

  @ApiPropertyOptional({ description: 'ISO 8601; default: now. The due suggestion counts from it.' })
  @IsOptional()
  @IsISO8601({ strict: true })
  received_at?: string;

  @ApiPropertyOptional({
    description:
      'The email\'s Message-ID header (`<…@…>`, brackets optional): a retried webhook with the same id returns the task already made (200, `deduplicated: true`). ' +
      'Without it, the same sender, subject, body and received_at count as the same email (SHA-256 of them).',
    example: '<CAF=1234@mail.client.example>',
  })
  @IsOptional()
  @IsString()
  @MaxLength(998)
  message_id?: string;
}

export class ListTasksDto extends ActionRequest {
  @ApiPropertyOptional({ enum: STATUSES })
  @IsOptional()
  @IsIn(STATUSES)
  status?: TaskStatus;

  @ApiPropertyOptional({ enum: PRIORITIES })
  @IsOptional()
  @IsIn(PRIORITIES)
  priority?: Priority;

  @ApiPropertyOptional({ enum: CATEGORIES })
  @IsOptional()
  @IsIn(CATEGORIES)
  category?: Category;

  @ApiPropertyOptional({ description: 'Case-insensitive text in sender, subject, body, summary, shipment references, assignee or notes' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  search?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_TASKS, default: 50 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_TASKS)
  limit?: number;
}

export class TaskIdDto extends ActionRequest {
  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  task_id!: string;
}

export class UpdateTaskDto extends TaskIdDto {
  @ApiPropertyOptional({ enum: STATUSES, description: 'Allowed moves: PENDING → IN_PROGRESS, IN_PROGRESS → DONE, PENDING → DONE (and the current status)' })
  @IsOptional()
  @IsIn(STATUSES)
  status?: TaskStatus;

  @ApiPropertyOptional({ nullable: true, description: 'null clears it' })
  @ValidateIf((_o, v) => v !== null)
  @IsOptional()
  @IsString()
  @MaxLength(200)
  assigned_to?: string | null;

  @ApiPropertyOptional({ nullable: true, description: 'null clears them' })
  @ValidateIf((_o, v) => v !== null)
  @IsOptional()
  @IsString()
  @MaxLength(10_000)
  notes?: string | null;

  @ApiPropertyOptional({ enum: PRIORITIES })
  @IsOptional()
  @IsIn(PRIORITIES)
  priority?: Priority;
}

export class BulkUpdateTasksDto extends ActionRequest {
  @ApiProperty({ type: [String], format: 'uuid', maxItems: MAX_TASKS })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_TASKS)
  @ArrayUnique()
  @IsUUID(undefined, { each: true })
  task_ids!: string[];

  @ApiPropertyOptional({ enum: STATUSES })
  @IsOptional()
  @IsIn(STATUSES)
  status?: TaskStatus;

  @ApiPropertyOptional({ nullable: true })
  @ValidateIf((_o, v) => v !== null)
  @IsOptional()
  @IsString()
  @MaxLength(200)
  assigned_to?: string | null;
}

export class RecapEmailDto {
  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  @MaxLength(320)
  from!: string;

  @ApiProperty()
  @IsString()
  @MaxLength(1000)
  subject!: string;

  @ApiProperty()
  @IsString()
  @MaxLength(50_000)
  body!: string;
}

export class RecapDto extends ActionRequest {
  @ApiProperty({ type: [RecapEmailDto], minItems: 1, maxItems: 100 })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => RecapEmailDto)
  emails!: RecapEmailDto[];
}

/** `stats`, `get_recap`: the action and the key only. */
export class PlainActionDto extends ActionRequest {}

/** The DTO that validates each action's body. */
export const ACTION_DTOS: Record<TaskAction, new () => ActionRequest> = {
  list: ListTasksDto,
  get: TaskIdDto,
  update: UpdateTaskDto,
  delete: TaskIdDto,
  stats: PlainActionDto,
  bulk_update: BulkUpdateTasksDto,
  recap: RecapDto,
  get_recap: PlainActionDto,
};
