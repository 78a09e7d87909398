import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, MaxLength, Min } from 'class-validator';
import { CursorPageQueryDto } from '../../common/cursor-page-query.dto';

export class EventDto {
  @ApiProperty() id: number;
  @ApiProperty({ description: 'ISO 8601 (UTC)' }) created_at: string;
  @ApiProperty({
    description:
      'What happened, for example automation_created, automation_updated, automation_deleted, go_live, paused, resumed, migration_finished, ' +
      'reel_attached, import; and from the engine: comment_received, dm_sent, link_sent, email_captured, clicked, skipped, skipped_other_tool, error',
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
  automation_id?: number;
}
