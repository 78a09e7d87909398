import { ApiProperty, ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { CursorPageQueryDto } from '../../common/cursor-page-query.dto';
import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsISO8601, IsOptional, IsString, IsUUID, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { WITH_ZONE } from '../../automations/dto/automation-input.dto';
import { IsWebhookUrl } from '../../common/is-webhook-url.decorator';
import { MAX_INT4 } from '../../common/id.pipe';
import { REEL_STATUSES } from '../reels.repository';

/** Caption limit of the platform. */
export const MAX_CAPTION = 2200;

/** `source` of a new reel or planned post: exactly one of video_url and video_id. */
export class VideoSourceInputDto {
  @ApiPropertyOptional({ example: 'https://cdn.example.com/reel.mp4', description: 'Public https URL the platform fetches the video from' })
  @IsOptional()
  @IsString()
  @IsWebhookUrl()
  video_url?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'video_id of POST /videos' })
  @IsOptional()
  @IsUUID('all', { message: 'video_id must be the video_id of an uploaded video (POST /videos)' })
  video_id?: string;
}

export class CreateReelDto {
  @ApiProperty({ example: '2026-12-01T18:00:00+01:00', description: 'When to publish, ISO 8601 with time zone. A time in the past publishes at once.' })
  @IsISO8601({ strict: true })
  @Matches(WITH_ZONE, { message: 'publish_at must be a date and time with a time zone, e.g. 2026-12-01T18:00:00+01:00 (Z or ±hh:mm)' })
  publish_at: string;

  @ApiProperty({ maxLength: MAX_CAPTION })
  @IsString()
  @MaxLength(MAX_CAPTION)
  caption: string;

  @ApiProperty({ type: VideoSourceInputDto })
  @ValidateNested()
  @Type(() => VideoSourceInputDto)
  source: VideoSourceInputDto;

  @ApiPropertyOptional({ default: false, description: 'Trial reel: shown to non-followers first (graduation strategy MANUAL)' })
  @IsOptional()
  @IsBoolean()
  trial?: boolean;

  @ApiPropertyOptional({ type: Boolean, nullable: true, description: 'Also show the reel in the feed; null leaves the platform default' })
  @IsOptional()
  @IsBoolean()
  share_to_feed?: boolean | null;

  @ApiPropertyOptional({ type: Number, nullable: true, description: 'A next_post automation (comment trigger, waiting) that attaches to exactly this reel when it is published' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_INT4)
  automation_id?: number | null;
}

/** `status` filter and `limit` (1…200, default 50) of the list. */
export class ListReelsQueryDto extends PickType(CursorPageQueryDto, ['limit'] as const) {
  @ApiPropertyOptional({ enum: REEL_STATUSES })
  @IsOptional()
  @IsIn(REEL_STATUSES)
  status?: string;
}

export class ReelSourceDto {
  @ApiPropertyOptional({ format: 'uuid' }) video_id?: string;
  @ApiPropertyOptional({ description: 'Size of the uploaded file in megabytes' }) size_mb?: number;
  @ApiPropertyOptional({ enum: ['stored', 'uploaded', 'deleted'] }) file_status?: string;
  @ApiPropertyOptional() video_url?: string;
}

/** Reel (scheduled video). */
export class ReelDto {
  @ApiProperty() id: number;
  @ApiProperty({ enum: REEL_STATUSES }) status: string;
  @ApiProperty({ description: 'ISO 8601 (UTC)' }) publish_at: string;
  @ApiProperty() caption: string;
  @ApiProperty({ type: ReelSourceDto, description: '{video_id, size_mb, file_status} or {video_url}' }) source: ReelSourceDto;
  @ApiProperty() trial: boolean;
  @ApiProperty({ type: Boolean, nullable: true }) share_to_feed: boolean | null;
  @ApiProperty({ type: Number, nullable: true }) automation_id: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'Last status_code of the platform container (IN_PROGRESS, FINISHED, ERROR, EXPIRED, PUBLISHED)' }) container_status: string | null;
  @ApiProperty({ type: String, nullable: true }) media_id: string | null;
  @ApiProperty({ type: String, nullable: true }) permalink: string | null;
  @ApiProperty({ type: String, nullable: true }) published_at: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Error text from the social platform when failed' }) error: string | null;
  @ApiProperty() created_at: string;
}
