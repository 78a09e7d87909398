import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsEmail, IsIn, IsObject, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { PageDto, PageQueryDto } from '../../common/dto/page.dto';
import { ContactDto } from '../../contacts/dto/contact-response.dto';

const CONDITION_DOC =
  '`{logic: "AND"|"OR", groups: [{filters: [{field, operator, value?, unit?}], conditions?: <nested condition>}]}`; the filters of a group are ANDed. ' +
  'Fields: `email`, `subscribed`, `createdAt`, `updatedAt`, `data.<path>` (a `YYYY-MM-DD` value matches the whole day), `event.<name>`, `email.<opened|clicked|bounced|complained|sent|delivered>`, `segment.<id>`. ' +
  'Operators: equals, notEquals, contains, notContains, greaterThan, lessThan, greaterThanOrEqual, lessThanOrEqual, exists, notExists, within, olderThan (contact fields); ' +
  'triggered, triggeredWithin, triggeredOlderThan, notTriggered, notTriggeredWithin (events and email activity); memberOfSegment, notMemberOfSegment (segments; cycles give 400). ' +
  'Time operators take `value` (a number) and `unit` (days, hours, minutes). A missing field never matches a negated or comparing operator.';

export const CONDITION_SCHEMA = {
  type: 'object',
  description: CONDITION_DOC,
  example: { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }, { field: 'event.signup', operator: 'triggeredWithin', value: 7, unit: 'days' }] }] },
  additionalProperties: true,
} as const;

export class CreateSegmentDto {
  @ApiProperty({ maxLength: 200 })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name: string;

  @ApiPropertyOptional({ maxLength: 2000, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string | null;

  @ApiProperty({ enum: ['DYNAMIC', 'STATIC'] })
  @IsIn(['DYNAMIC', 'STATIC'])
  type: 'DYNAMIC' | 'STATIC';

  @ApiPropertyOptional({ ...CONDITION_SCHEMA, description: `Required for DYNAMIC, refused (400 \`STATIC_SEGMENT_CONDITION\`) for STATIC. ${CONDITION_DOC}` })
  @IsOptional()
  @IsObject()
  condition?: Record<string, unknown>;

  @ApiPropertyOptional({ default: false, description: 'DYNAMIC only: keep a membership list that POST /segments/{id}/compute diffs, recording `segment.<slug>.entry|exit` events' })
  @IsOptional()
  @IsBoolean()
  trackMembership?: boolean;
}

export class UpdateSegmentDto {
  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ maxLength: 2000, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string | null;

  @ApiPropertyOptional({ ...CONDITION_SCHEMA, description: `DYNAMIC segments only (400 \`STATIC_SEGMENT_CONDITION\` on a STATIC one). ${CONDITION_DOC}` })
  @IsOptional()
  @IsObject()
  condition?: Record<string, unknown>;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  trackMembership?: boolean;
}

export class SegmentMembersDto {
  @ApiProperty({ type: [String], minItems: 1, maxItems: 500, example: ['ada@example.com'] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(500)
  @IsEmail({}, { each: true })
  emails: string[];

  @ApiPropertyOptional({ default: false, description: 'Create contacts for emails not in the project (POST only)' })
  @IsOptional()
  @IsBoolean()
  createMissing?: boolean;

  @ApiPropertyOptional({ description: 'Subscription state of contacts created here (default true)' })
  @IsOptional()
  @IsBoolean()
  subscribed?: boolean;
}

export class RemoveMembersDto {
  @ApiProperty({ type: [String], minItems: 1, maxItems: 500 })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(500)
  @IsEmail({}, { each: true })
  emails: string[];
}

export class SegmentPageQueryDto extends PageQueryDto {}

export class SegmentDto {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty()
  name: string;
  @ApiProperty({ description: 'Name in the `segment.<slug>.entry|exit` event names' })
  slug: string;
  @ApiProperty({ type: String, nullable: true })
  description: string | null;
  @ApiProperty({ enum: ['DYNAMIC', 'STATIC'] })
  type: string;
  @ApiProperty({ ...CONDITION_SCHEMA, nullable: true, description: 'null for STATIC segments' })
  condition: Record<string, unknown> | null;
  @ApiProperty()
  trackMembership: boolean;
  @ApiProperty({ description: 'Cached member count (updated on create, update, members changes, refresh and compute)' })
  memberCount: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  memberCountUpdatedAt: string | null;
  @ApiProperty({ format: 'date-time' })
  createdAt: string;
  @ApiProperty({ format: 'date-time' })
  updatedAt: string;
}

export class SegmentContactsPageDto extends PageDto(ContactDto) {}

export class MembersAddedDto {
  @ApiProperty({ description: 'Contacts that became members' })
  added: number;
  @ApiProperty({ description: 'Contacts created (createMissing)' })
  created: number;
  @ApiProperty({ type: [String], description: 'Emails with no contact (without createMissing)' })
  notFound: string[];
}

export class MembersRemovedDto {
  @ApiProperty()
  removed: number;
  @ApiProperty({ type: [String] })
  notFound: string[];
}

export class ComputeResultDto {
  @ApiProperty({ description: 'Contacts that entered (a `segment.<slug>.entry` event each)' })
  added: number;
  @ApiProperty({ description: 'Contacts that left (a `segment.<slug>.exit` event each)' })
  removed: number;
  @ApiProperty({ description: 'Members now' })
  total: number;
}

/** 202 of POST /segments/:id/compute when the project is above SEGMENT_COMPUTE_INLINE_MAX contacts. */
export class ComputeQueuedDto {
  @ApiProperty({ pattern: '^job_[0-9a-z]{20}$', description: 'Poll it with GET /segments/{id}/compute/{jobId}' })
  jobId: string;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Contacts the recompute visits (every contact of the project)' })
  total: number;
  @ApiProperty({ example: 'Recompute queued; poll GET /segments/:id/compute/:jobId' })
  message: string;
}

class ComputeJobResultDto {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Contacts that entered so far' })
  added: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Contacts that left so far' })
  removed: number;
  @ApiPropertyOptional({ type: 'integer', minimum: 0, description: 'Members now; present once completed' })
  total?: number;
}

/** GET /segments/:id/compute/:jobId. */
export class ComputeJobDto {
  @ApiProperty({ pattern: '^job_[0-9a-z]{20}$' })
  id: string;
  @ApiProperty({ enum: ['SEGMENT_COMPUTE'] })
  type: 'SEGMENT_COMPUTE';
  @ApiProperty({ enum: ['waiting', 'active', 'completed', 'failed'], description: 'waiting → active → completed, or failed (`failedReason`)' })
  state: string;
  @ApiProperty({ type: 'integer', minimum: 0, maximum: 100, description: 'Percent of the project\'s contacts visited (100 once completed)' })
  progress: number;
  @ApiProperty({ type: 'integer', minimum: 0 })
  total: number;
  @ApiProperty({ type: 'integer', minimum: 0 })
  processed: number;
  @ApiProperty({ type: ComputeJobResultDto, nullable: true, description: 'Counts so far; null before the first batch' })
  result: ComputeJobResultDto | null;
  @ApiProperty({ type: [Object], maxItems: 0, description: 'Always empty (a recompute has no row errors)' })
  errors: unknown[];
  @ApiProperty({ type: String, nullable: true, description: 'Why the job failed for good' })
  failedReason: string | null;
  @ApiProperty({ format: 'date-time' })
  createdAt: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  startedAt: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  finishedAt: string | null;
}
