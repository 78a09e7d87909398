import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsIn, IsObject, IsOptional, Matches, MaxLength } from 'class-validator';
import { CursorPageDto } from '../../common/dto/cursor-page.dto';
import { CursorQueryDto } from '../../common/list-query.dto';
import { EXECUTION_STATUSES, STEP_RUN_STATUSES, type ExecutionStatus } from '../execution';
import { STEP_TYPES } from '../step-config';

export class StartExecutionDto {
  @ApiPropertyOptional({ example: 'cnt_0a1b2c3d4e5f6g7h8i9j', description: 'The contact (give this or `email`)' })
  @IsOptional()
  @Matches(/^cnt_[0-9a-z]{1,64}$/, { message: 'contactId must be a contact id (cnt_…)' })
  contactId?: string;

  @ApiPropertyOptional({ example: 'ada@example.com', description: 'The contact by email (give this or `contactId`); it must exist' })
  @IsOptional()
  @IsEmail()
  @MaxLength(254)
  email?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { plan: 'pro' },
    description: 'Per-execution variables: `{{context.x}}` in templates and webhook bodies; CONDITION `event.<key>` reads them on a manual start. At most 64 KiB of JSON.',
  })
  @IsOptional()
  @IsObject()
  context?: Record<string, unknown>;
}

export class ExecutionsQueryDto extends CursorQueryDto {
  @ApiPropertyOptional({ enum: EXECUTION_STATUSES, description: 'Only executions in this status' })
  @IsOptional()
  @IsIn(EXECUTION_STATUSES)
  status?: ExecutionStatus;
}

export class ExecutionTriggerDto {
  @ApiProperty({ enum: ['EVENT', 'SEGMENT_ENTRY', 'SEGMENT_EXIT', 'MANUAL'] })
  type: string;

  @ApiPropertyOptional({ description: 'The event that started it (absent for a manual start)' })
  eventName?: string;

  @ApiPropertyOptional({ example: 'evt_0a1b2c3d4e5f6g7h8i9j' })
  eventId?: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: "The triggering event's data (a segment move: `{segmentId, segmentName}`; a manual start: its context)" })
  data: Record<string, unknown>;
}

export class ExecutionDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  workflowId: string;

  @ApiProperty({ example: 'cnt_0a1b2c3d4e5f6g7h8i9j' })
  contactId: string;

  @ApiProperty({ enum: EXECUTION_STATUSES, description: 'RUNNING and WAITING are active; COMPLETED (the end of the graph, or a WAIT_FOR_EVENT timeout without `timeout` branch: exitReason `timeout`), EXITED (an EXIT step, or exited when the step it waited at was edited or deleted with `?exitWaiting=true`), FAILED (a step failed after its retries, see `error`), CANCELLED' })
  status: ExecutionStatus;

  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: 'The step it is at (the last one once ended); null when that step was deleted' })
  currentStepId: string | null;

  @ApiProperty({ type: 'object', additionalProperties: true })
  context: Record<string, unknown>;

  @ApiProperty({ type: ExecutionTriggerDto })
  trigger: ExecutionTriggerDto;

  @ApiProperty({ nullable: true, type: String, description: 'Why it ended early: an EXIT step\'s reason, `timeout`, `cancelled`, or the reason given when waiting executions were exited' })
  exitReason: string | null;

  @ApiProperty({ nullable: true, type: String, description: 'FAILED: which step failed and why' })
  error: string | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'WAITING: when it resumes (the end of a DELAY, the timeout of a WAIT_FOR_EVENT); null otherwise or when waiting for an event without timeout' })
  resumeAt: string | null;

  @ApiProperty({ nullable: true, type: String, description: 'WAITING at a WAIT_FOR_EVENT: the event name it waits for' })
  waitingFor: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt: string;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  endedAt: string | null;
}

export class StepRunDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'Order of the step run in the execution (1 = the TRIGGER)' })
  seq: number;

  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: 'null when the step was deleted since (its type and name are kept)' })
  stepId: string | null;

  @ApiProperty({ enum: STEP_TYPES })
  stepType: string;

  @ApiProperty()
  stepName: string;

  @ApiProperty({ enum: STEP_RUN_STATUSES, description: 'WAITING (a DELAY or WAIT_FOR_EVENT), PENDING (an attempt failed, retried after the backoff), COMPLETED, FAILED (no tries left), SKIPPED (the execution was cancelled or exited while at it)' })
  status: string;

  @ApiPropertyOptional({ description: 'What the step was given (its config as run)', nullable: true })
  input: unknown;

  @ApiPropertyOptional({ description: 'What it did: the mail (`emailId`, `status`, `to`), the webhook\'s answer (`status`, `body` up to 4 KiB, `truncated`), the condition\'s `result` and `branch`, a wait\'s `resumeAt` / `outcome`…', nullable: true })
  output: unknown;

  @ApiProperty({ nullable: true, type: String, description: 'The last failed attempt\'s error' })
  error: string | null;

  @ApiProperty({ type: 'integer', minimum: 0 })
  attempts: number;

  @ApiProperty({ format: 'date-time' })
  startedAt: string;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  completedAt: string | null;
}

export class ExecutionDetailDto extends ExecutionDto {
  @ApiProperty({ type: [StepRunDto], description: 'The step history, in order' })
  steps: StepRunDto[];
}

export class ExecutionPageDto extends CursorPageDto(ExecutionDto) {}

export class CancelAllDto {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Executions cancelled' })
  cancelled: number;
}
