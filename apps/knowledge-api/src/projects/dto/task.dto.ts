import { IsOptionalNotNull } from './optional';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  Equals,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { TASK_STATUSES, type TaskStatus } from '../projects.types';

export const toBoolean = ({ value }: { value: unknown }): unknown =>
  value === 'true' || value === '1' || value === true ? true : value === 'false' || value === '0' || value === false ? false : value;

export class TaskSourceRefDto {
  @ApiProperty({ description: 'A knowledge source id; must exist.' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(300)
  source_id!: string;

  @ApiPropertyOptional({ description: 'Filled with the source\'s title.' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(300)
  title?: string;

  @ApiPropertyOptional({ description: 'A page of the source.' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(2048)
  url?: string;

  @ApiPropertyOptional({ description: 'Why it matters to the task.' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(1000)
  relevance?: string;
}

export class TaskCodeExampleRefDto {
  @ApiPropertyOptional({ description: 'A stored code example\'s id (`POST /api/rag/code-examples` answers them); must exist.' })
  @IsOptionalNotNull()
  @IsInt()
  @Min(1)
  code_example_id?: number;

  @ApiPropertyOptional()
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(300)
  source_id?: string;

  @ApiPropertyOptional({ description: 'A file in the project\'s repository.' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(1000)
  file?: string;

  @ApiPropertyOptional()
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(300)
  function?: string;

  @ApiPropertyOptional()
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(1000)
  purpose?: string;
}

class TaskFieldsDto {
  @ApiPropertyOptional({ default: '' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(20_000)
  description?: string;

  @ApiPropertyOptional({ enum: TASK_STATUSES, default: 'todo' })
  @IsOptionalNotNull()
  @IsIn(TASK_STATUSES)
  status?: TaskStatus;

  @ApiPropertyOptional({ default: 'User', example: 'AI IDE Agent' })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  assignee?: string;

  @ApiPropertyOptional({ minimum: 0, description: 'Position within its status (0 = first). Omitted: last. Tasks at or after it move down one.' })
  @IsOptionalNotNull()
  @IsInt()
  @Min(0)
  @Max(100_000)
  task_order?: number;

  @ApiPropertyOptional({ nullable: true, description: 'The name of a feature of the project (free text).' })
  @IsOptional()
  @IsString()
  @MaxLength(300)
  feature?: string | null;

  @ApiPropertyOptional({ format: 'uuid', nullable: true, description: 'A task of the same project; no cycles.' })
  @IsOptional()
  @IsUUID()
  parent_task_id?: string | null;

  @ApiPropertyOptional({ type: [TaskSourceRefDto] })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => TaskSourceRefDto)
  sources?: TaskSourceRefDto[];

  @ApiPropertyOptional({ type: [TaskCodeExampleRefDto] })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => TaskCodeExampleRefDto)
  code_examples?: TaskCodeExampleRefDto[];
}

export class CreateTaskDto extends TaskFieldsDto {
  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  project_id!: string;

  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  @MaxLength(300)
  title!: string;
}

export class UpdateTaskDto extends TaskFieldsDto {
  @ApiPropertyOptional()
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(300)
  title?: string;

  @ApiPropertyOptional({ enum: [false], description: '`false` restores an archived task (last in its status). Archive with DELETE.' })
  @IsOptionalNotNull()
  @Equals(false, { message: 'archived may only be set to false here (archive a task with DELETE /api/tasks/{id})' })
  archived?: false;
}

export class ProjectTasksQueryDto {
  @ApiPropertyOptional({ enum: TASK_STATUSES })
  @IsOptionalNotNull()
  @IsIn(TASK_STATUSES)
  status?: TaskStatus;

  @ApiPropertyOptional()
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(100)
  assignee?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(300)
  feature?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Subtasks of this task.' })
  @IsOptional()
  @IsUUID()
  parent_task_id?: string;

  @ApiPropertyOptional({ default: false })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  include_archived?: boolean;
}

export class ListTasksQueryDto extends ProjectTasksQueryDto {
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  project_id?: string;

  @ApiPropertyOptional({ default: true, description: '`false` leaves out tasks with status `done`.' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  include_closed?: boolean;

  @ApiPropertyOptional({ default: 1, minimum: 1 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  page?: number;

  @ApiPropertyOptional({ default: 50, minimum: 1, maximum: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  per_page?: number;
}
