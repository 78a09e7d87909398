import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDate, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
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
}

export class SinceQueryDto {
  @ApiPropertyOptional({ description: 'ISO 8601 start of the period (default: 30 days ago for stats, 24 hours ago for recent-count)' })
  @IsOptional()
  @Type(() => Date)
  @IsDate()
  since?: Date;
}

/** The activity types this part records (GET /activity/types lists those present in the project). */
export const ACTIVITY_TYPES = ['event', 'email.queued', 'email.sending', 'email.sent', 'email.failed', 'email.suppressed', 'email.stored'] as const;

export class ActivityItemDto {
  @ApiProperty({ pattern: '^(evt|eml)_[0-9a-z]{20}$', example: 'evt_0a1b2c3d4e5f6g7h8i9j', description: 'The event (`evt_…`) or email (`eml_…`) id' })
  id: string;

  @ApiProperty({ enum: ACTIVITY_TYPES, description: '`event` for a tracked event, `email.<status>` for an email' })
  type: (typeof ACTIVITY_TYPES)[number];

  @ApiProperty({ example: 'signed_up', description: 'The event name, or the email subject' })
  title: string;

  @ApiProperty({ type: String, nullable: true, pattern: idPattern('cnt'), example: 'cnt_0a1b2c3d4e5f6g7h8i9j' })
  contactId: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'ada@example.com', description: 'The contact\'s email (events) or the recipient address (emails)' })
  email: string | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    example: { status: 'STORED', statusReason: 'SMTP_URL is not configured', kind: 'TRANSACTIONAL', source: 'API', from: 'no-reply@email.localhost', sentAt: null, messageId: null },
    description: 'Events: their properties (null when none). Emails: `{status, statusReason, kind, source, from, sentAt, messageId}`',
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
