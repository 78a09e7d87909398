import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDate, IsInt, IsOptional, IsString, IsUUID, Matches, Max, MaxLength, Min } from 'class-validator';
import { CursorPageDto } from '../../common/dto/cursor-page.dto';
import { idPattern } from '../../common/ids';
import { CursorQueryDto } from '../../common/list-query.dto';

export class ActivityQueryDto extends CursorQueryDto {
  @ApiPropertyOptional({ description: 'Only this type (see GET /activity/types), e.g. `event` or `email.sent`' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  type?: string;

  @ApiPropertyOptional({ description: 'Only activity of this contact' })
  @IsOptional()
  @Matches(/^cnt_[0-9a-z]+$/, { message: 'contactId must be a contact id (cnt_…)' })
  contactId?: string;

  @ApiPropertyOptional({ description: 'Only this email and its events (opens, clicks, bounces…)' })
  @IsOptional()
  @Matches(/^eml_[0-9a-z]+$/, { message: 'emailId must be an email id (eml_…)' })
  emailId?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Only the mails of this campaign and their events' })
  @IsOptional()
  @IsUUID()
  campaignId?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Only items at or after this time' })
  @IsOptional()
  @Type(() => Date)
  @IsDate()
  since?: Date;

  @ApiPropertyOptional({ format: 'date-time', description: 'Only items before this time' })
  @IsOptional()
  @Type(() => Date)
  @IsDate()
  until?: Date;
}

export class UpcomingQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;
}

export class UpcomingItemDto {
  @ApiProperty({ enum: ['campaign', 'workflow_execution'], description: 'A scheduled campaign, or a workflow execution waiting at a DELAY or WAIT_FOR_EVENT step' })
  type: 'campaign' | 'workflow_execution';

  @ApiProperty({ format: 'uuid', description: 'The campaign, or the execution' })
  id: string;

  @ApiPropertyOptional({ description: 'campaign: its name' })
  name?: string;

  @ApiPropertyOptional({ description: 'campaign: its subject' })
  subject?: string;

  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'When it sends (campaign) or resumes (execution: the end of its DELAY or its WAIT_FOR_EVENT timeout; null when it waits for an event without timeout)' })
  scheduledFor: string | null;

  @ApiPropertyOptional({ enum: ['ALL', 'SEGMENT', 'FILTERED'], description: 'campaign: its audience type' })
  audienceType?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'workflow_execution: its workflow' })
  workflowId?: string;

  @ApiPropertyOptional({ description: 'workflow_execution: the name of its workflow' })
  workflowName?: string;

  @ApiPropertyOptional({ example: 'cnt_0a1b2c3d4e5f6g7h8i9j', description: 'workflow_execution: its contact' })
  contactId?: string;

  @ApiPropertyOptional({ format: 'uuid', nullable: true, type: String, description: 'workflow_execution: the step it waits at' })
  stepId?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, description: 'workflow_execution: the name of that step' })
  stepName?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, enum: ['DELAY', 'WAIT_FOR_EVENT'], description: 'workflow_execution: DELAY or WAIT_FOR_EVENT' })
  stepType?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, description: 'workflow_execution at a WAIT_FOR_EVENT: the event name it waits for' })
  waitingFor?: string | null;
}

export class SinceQueryDto {
  @ApiPropertyOptional({ description: 'ISO 8601 start of the period (default: 30 days ago for stats, 24 hours ago for recent-count)' })
  @IsOptional()
  @Type(() => Date)
  @IsDate()
  since?: Date;
}

/** The activity types this part records (GET /activity/types lists those present in the project). */
export const ACTIVITY_TYPES = [
  'event',
  'email.queued',
  'email.sending',
  'email.sent',
  'email.failed',
  'email.suppressed',
  'email.stored',
  'email.cancelled',
  'email.delivered',
  'email.opened',
  'email.clicked',
  'email.bounced',
  'email.complained',
  'email.unsubscribed',
  'email.received',
] as const;

export class ActivityItemDto {
  @ApiProperty({ pattern: '^(evt|eml|mev)_[0-9a-z]{20}$', example: 'evt_0a1b2c3d4e5f6g7h8i9j', description: 'The event (`evt_…`), email (`eml_…`) or mail event (`mev_…`) id' })
  id: string;

  @ApiProperty({
    enum: ACTIVITY_TYPES,
    description:
      '`event` for a tracked event; `email.<status>` for an email (queued … cancelled); a mail event: `email.delivered|opened|clicked|bounced|complained|unsubscribed|received` ' +
      '(its `data`: `source`, `human` (false for privacy-proxy opens and scanner clicks, with `flag`), `url` of a click, `bounceType`, and what the report carried)',
  })
  type: (typeof ACTIVITY_TYPES)[number];

  @ApiProperty({ example: 'signed_up', description: 'The event name, or the email subject' })
  title: string;

  @ApiProperty({ type: String, nullable: true, pattern: idPattern('cnt'), example: 'cnt_0a1b2c3d4e5f6g7h8i9j' })
  contactId: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'ada@example.com', description: 'The contact\'s email (events) or the recipient address (emails, mail events; the sender of inbound mail)' })
  email: string | null;

  @ApiProperty({ type: String, nullable: true, pattern: idPattern('eml'), description: 'The email (emails and their events)' })
  emailId: string | null;

  @ApiProperty({ type: String, nullable: true, format: 'uuid', description: 'The campaign of the email' })
  campaignId: string | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    example: { status: 'STORED', statusReason: 'SMTP_URL is not configured', kind: 'TRANSACTIONAL', source: 'API', from: 'no-reply@email.localhost', sentAt: null, messageId: null },
    description: 'Events: their properties (null when none). Emails: `{status, statusReason, kind, source, from, sentAt, messageId}`. Mail events: `{source, human, flag?, url?, bounceType?, …}`',
  })
  data: Record<string, unknown> | null;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}

export class ActivityPageDto extends CursorPageDto(ActivityItemDto) {}

export class ActivityStatsDto {
  @ApiProperty({ format: 'date-time', description: 'Start of the period' })
  since: string;

  @ApiProperty({ type: 'integer', minimum: 0 })
  total: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Tracked events' })
  events: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Emails (every status)' })
  emails: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Mail events (deliveries, opens, clicks, bounces, complaints, unsubscribes, inbound mail; sends are the emails themselves)' })
  mailEvents: number;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer', minimum: 1 },
    example: { event: 12, 'email.sent': 3 },
    description: 'Count per activity type; types without items are absent',
  })
  byType: Record<string, number>;
}

export class RecentCountDto {
  @ApiProperty({ format: 'date-time', description: 'Start of the period' })
  since: string;

  @ApiProperty({ type: 'integer', minimum: 0 })
  count: number;
}
