import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsObject, IsOptional, IsString, IsUUID, MaxLength, MinLength, ValidateIf } from 'class-validator';
import { PageDto, PageQueryDto } from '../../common/dto/page.dto';
import { STEP_CONFIG_SCHEMA } from './step-configs.dto';
import { ADDABLE_STEP_TYPES, BRANCHES, CONDITION_OPERATORS, STEP_TYPES, TRIGGER_TYPES, type Branch, type StepType, type TriggerType } from '../step-config';

/** `?flag=true|false` as a boolean (anything else stays as sent and is refused by @IsBoolean). */
const queryBoolean = () => Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value));

export const STEP_CONFIG_DOC = [
  'The config of each step type (unknown keys are refused):',
  '- `TRIGGER`: `{}` (created with the workflow; the trigger itself is the workflow\'s `triggerType` and `triggerConfig`)',
  '- `SEND_EMAIL`: `{templateId, to?}`: a template of the project (its `from` on a verified domain when the workflow is enabled); `to` another address than the contact\'s',
  '- `DELAY`: `{amount, unit}`: a positive whole `amount` of `minutes`, `hours` or `days`, at most 365 days',
  '- `WAIT_FOR_EVENT`: `{eventName, timeout?}`: waits for the contact\'s next tracked event of that name; `timeout` in seconds (at most 365 days): then the `timeout` transition, or without one the execution ends COMPLETED with exitReason `timeout`',
  `- \`CONDITION\`: \`{field, operator, value?}\`: \`field\` is \`contact.email\`, \`contact.subscribed\`, \`contact.data.<key>\`, \`event.<key>\` (the triggering event's data) or \`email.<stepId>.opened\` / \`email.<stepId>.clicked\` (the mail of a SEND_EMAIL step before it, in this execution; value true or false); \`operator\` one of ${CONDITION_OPERATORS.join(', ')} (\`exists\`/\`not_exists\` take no value, \`in\` an array); then the \`yes\` or \`no\` transition`,
  '- `WEBHOOK`: `{url, method, headers?, body?}`: http(s) URL, GET/POST/PUT/PATCH/DELETE, string headers (the platform sets framing and signature headers), a JSON or string body (not with GET), at most 64 KiB',
  '- `UPDATE_CONTACT`: `{data?, subscribed?}`: custom fields merged into the contact (null removes one), subscription set',
  '- `EXIT`: `{reason?}`: ends the execution as EXITED with the reason',
].join('\n');

// ---------- requests ----------

export class CreateWorkflowDto {
  @ApiProperty({ maxLength: 200, example: 'Welcome series' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 2000 })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string | null;

  @ApiPropertyOptional({ default: false, description: 'Whether a contact may go through the workflow again after an earlier execution ended (never two active executions of one contact at once)' })
  @IsOptional()
  @IsBoolean()
  allowReentry?: boolean;

  @ApiPropertyOptional({ example: { eventName: 'signed_up' }, description: 'The EVENT trigger\'s config `{eventName}` (optional here; required to enable)' })
  @IsOptional()
  @IsObject()
  triggerConfig?: Record<string, unknown>;
}

export class UpdateWorkflowDto {
  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 2000, description: 'null clears it' })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @MaxLength(2000)
  description?: string | null;

  @ApiPropertyOptional({ enum: TRIGGER_TYPES, description: 'Changing it without `triggerConfig` resets the config to `{}`' })
  @IsOptional()
  @IsIn(TRIGGER_TYPES)
  triggerType?: TriggerType;

  @ApiPropertyOptional({
    example: { segmentId: '3f0c2a9e-4c1b-4d2a-9f59-1b2f8e1c7a10' },
    description: 'EVENT: `{eventName}`; SEGMENT_ENTRY / SEGMENT_EXIT: `{segmentId}` (a DYNAMIC segment with `trackMembership`: only those record entries and exits); MANUAL: `{}`. Replaced whole.',
  })
  @IsOptional()
  @IsObject()
  triggerConfig?: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'true checks the whole definition first (422 naming each problem); false stops new starts' })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  allowReentry?: boolean;
}

export class WorkflowListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ type: Boolean, description: 'Only enabled (true) or disabled (false) workflows' })
  @IsOptional()
  @queryBoolean()
  @IsBoolean()
  enabled?: boolean;
}

export class WorkflowFieldsQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'Also list the mail facts (`email.<stepId>.opened|clicked`) of this workflow\'s SEND_EMAIL steps' })
  @IsOptional()
  @IsUUID()
  workflowId?: string;
}

export class AddStepDto {
  @ApiProperty({ enum: ADDABLE_STEP_TYPES, description: 'Every type but TRIGGER (one per workflow, created with it)' })
  @IsIn(ADDABLE_STEP_TYPES)
  type: Exclude<StepType, 'TRIGGER'>;

  @ApiPropertyOptional({ maxLength: 200, description: 'Default: the type in words ("Send email", "Delay"…)' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ ...STEP_CONFIG_SCHEMA, example: { amount: 2, unit: 'days' }, description: `Default \`{}\`.\n\n${STEP_CONFIG_DOC}` })
  @IsOptional()
  @IsObject()
  config?: Record<string, unknown>;
}

export class UpdateStepDto {
  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ ...STEP_CONFIG_SCHEMA, example: { amount: 3, unit: 'days' }, description: `Replaced whole (not merged); the step keeps its type.\n\n${STEP_CONFIG_DOC}` })
  @IsOptional()
  @IsObject()
  config?: Record<string, unknown>;
}

export class StepChangeQueryDto {
  @ApiPropertyOptional({ type: Boolean, default: false, description: 'Executions waiting at the step exit (EXITED, exitReason `step_changed` / `step_deleted`) instead of the 409 `WORKFLOW_STEP_IN_USE`' })
  @IsOptional()
  @queryBoolean()
  @IsBoolean()
  exitWaiting?: boolean;
}

export class DeleteStepQueryDto extends StepChangeQueryDto {
  @ApiPropertyOptional({ type: Boolean, default: false, description: 'Reconnect the neighbours: the transitions into the step lead to its one next step (422 `splice_ambiguous` when it has several branches)' })
  @IsOptional()
  @queryBoolean()
  @IsBoolean()
  splice?: boolean;
}

export class AddTransitionDto {
  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  fromStepId: string;

  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  toStepId: string;

  @ApiPropertyOptional({ enum: BRANCHES, description: '`yes` or `no` out of a CONDITION step (required there); `timeout` out of a WAIT_FOR_EVENT step (optional); absent from every other step' })
  @IsOptional()
  @IsIn(BRANCHES)
  branch?: Branch;
}

// ---------- responses ----------

export class StepDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ enum: STEP_TYPES })
  type: StepType;

  @ApiProperty()
  name: string;

  @ApiProperty({ ...STEP_CONFIG_SCHEMA, description: STEP_CONFIG_DOC })
  config: Record<string, unknown>;
}

export class TransitionDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  fromStepId: string;

  @ApiProperty({ format: 'uuid' })
  toStepId: string;

  @ApiPropertyOptional({ enum: BRANCHES, description: 'Absent on a plain transition' })
  branch?: Branch;
}

export class WorkflowDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ type: String, nullable: true })
  description: string | null;

  @ApiProperty({ enum: TRIGGER_TYPES, description: 'EVENT on creation' })
  triggerType: TriggerType;

  @ApiProperty({ type: 'object', additionalProperties: true, example: { eventName: 'signed_up' }, description: '`{eventName}` (EVENT), `{segmentId}` (SEGMENT_ENTRY, SEGMENT_EXIT), `{}` (MANUAL)' })
  triggerConfig: Record<string, unknown>;

  @ApiProperty({ description: 'false on creation' })
  enabled: boolean;

  @ApiProperty()
  allowReentry: boolean;

  @ApiProperty({ format: 'date-time' })
  createdAt: Date;

  @ApiProperty({ format: 'date-time' })
  updatedAt: Date;
}

export class WorkflowDetailDto extends WorkflowDto {
  @ApiProperty({ type: [StepDto], description: 'Oldest first; the TRIGGER step (the entry) is among them' })
  steps: StepDto[];

  @ApiProperty({ type: [TransitionDto] })
  transitions: TransitionDto[];
}

export class WorkflowPageDto extends PageDto(WorkflowDto) {}

export class WorkflowFieldDto {
  @ApiProperty({ example: 'contact.data.plan', description: 'What a CONDITION step\'s `field` takes' })
  field: string;

  @ApiProperty({ enum: ['contact', 'event', 'email'], description: 'contact fields, the triggering event\'s data, or the mail facts of the workflow' })
  source: 'contact' | 'event' | 'email';

  @ApiProperty({ enum: ['string', 'number', 'boolean', 'date', 'array', 'object', 'null'], description: 'Standard fields: their type; custom and event keys: the most frequent JSON type of the stored values (strings that are all dates: date)' })
  type: string;

  @ApiProperty({ type: [String], description: 'Operators that make sense for the type' })
  operators: string[];

  @ApiPropertyOptional({ type: 'integer', description: 'Contacts holding the field, or sampled events holding the key' })
  count?: number;

  @ApiPropertyOptional({ description: 'contact fields: share of contacts holding it, in percent' })
  coverage?: number;

  @ApiPropertyOptional({ type: [String], description: 'event keys: the event names carrying it (at most 10)' })
  events?: string[];

  @ApiPropertyOptional({ description: 'email facts: the SEND_EMAIL step\'s name' })
  stepName?: string;
}

export class WorkflowFieldsDto {
  @ApiProperty({ type: 'integer' })
  totalContacts: number;

  @ApiProperty({ type: 'integer', example: 10000, description: 'The event keys come from at most this many of the project\'s newest tracked events (keys of older events only are not listed, and can still be used)' })
  eventSampleSize: number;

  @ApiProperty({ type: [WorkflowFieldDto] })
  fields: WorkflowFieldDto[];
}
