import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { MAX_INT4 } from '../../common/id.pipe';
import { CursorPageQueryDto } from '../../common/cursor-page-query.dto';

export class EventDto {
  @ApiProperty() id: number;
  @ApiProperty({ description: 'ISO 8601 (UTC)' }) created_at: string;
  @ApiProperty({
    description:
      'What happened. Automation changes: automation_created, automation_updated, automation_deleted, go_live, paused, resumed, migration_finished, ' +
      'reel_attached, import. The engine: triggered, public_reply_sent, dm_sent, button_tapped, gated, gate_passed, email_asked, email_retry, ' +
      'email_captured, email_expired, link_sent, link_resent, link_clicked, followed_up, follow_up_outside_window, follow_up_not_needed, ' +
      'follow_status_unknown, skipped, skipped_other_tool, send_uncertain, template_fallback, error, reel_suggested, reel_expired, ' +
      'webhook_retry, webhook_delivered, webhook_failed',
  })
  kind: string;
  @ApiProperty({ type: String, nullable: true }) username: string | null;
  @ApiProperty({ type: Number, nullable: true }) automation_id: number | null;
  @ApiProperty({ type: Number, nullable: true }) run_id: number | null;
  @ApiProperty({ type: String, nullable: true }) text: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Reference such as a comment id, media id or message id' }) ref: string | null;
}

export class EventPageDto {
  @ApiProperty({ type: [EventDto], description: 'Newest first' }) data: EventDto[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next page; null on the last page' }) next_cursor: string | null;
}

export class ListEventsQueryDto extends CursorPageQueryDto {
  @ApiPropertyOptional({ description: 'Only this kind' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  kind?: string;

  @ApiPropertyOptional({ description: 'Only events of this automation' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_INT4)
  automation_id?: number;
}
