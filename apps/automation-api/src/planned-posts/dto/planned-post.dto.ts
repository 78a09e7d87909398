import { ApiProperty, ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsISO8601, IsOptional, IsString, Matches, MaxLength, MinLength, ValidateNested } from 'class-validator';
import { WITH_ZONE } from '../../automations/dto/automation-input.dto';
import { CursorPageQueryDto } from '../../common/cursor-page-query.dto';
import { MAX_CAPTION, ReelSourceDto, VideoSourceInputDto } from '../../reels/dto/reel.dto';
import { PLANNED_POST_STATUSES, PLATFORMS, TARGET_STATUSES } from '../planned-posts.repository';

const ZONE_MESSAGE = (field: string) => `${field} must be a date and time with a time zone, e.g. 2026-12-01T18:00:00+01:00 (Z or ±hh:mm)`;

export class PlannedTargetInputDto {
  @ApiProperty({ enum: PLATFORMS })
  @IsIn(PLATFORMS)
  platform: string;

  @ApiPropertyOptional({ description: 'This target’s own publish time (default: the post’s publish_at), ISO 8601 with time zone' })
  @IsOptional()
  @IsISO8601({ strict: true })
  @Matches(WITH_ZONE, { message: ZONE_MESSAGE('publish_at') })
  publish_at?: string;
}

export class CreatePlannedPostDto {
  @ApiProperty({ example: '2026-12-01T18:00:00+01:00', description: 'ISO 8601 with time zone; a time in the past publishes at once' })
  @IsISO8601({ strict: true })
  @Matches(WITH_ZONE, { message: ZONE_MESSAGE('publish_at') })
  publish_at: string;

  @ApiProperty({ maxLength: MAX_CAPTION, description: 'Instagram caption; the YouTube description' })
  @IsString()
  @MaxLength(MAX_CAPTION)
  caption: string;

  @ApiPropertyOptional({ maxLength: 100, description: 'YouTube title (default: the caption’s first line, cut to 100 characters)' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  @Matches(/^[^<>]*$/, { message: 'title must not contain < or >' })
  title?: string;

  @ApiProperty({ type: VideoSourceInputDto })
  @ValidateNested()
  @Type(() => VideoSourceInputDto)
  source: VideoSourceInputDto;

  @ApiProperty({ type: [PlannedTargetInputDto], description: 'One entry per platform (instagram, youtube), 1 or 2' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(PLATFORMS.length)
  @ValidateNested({ each: true })
  @Type(() => PlannedTargetInputDto)
  targets: PlannedTargetInputDto[];

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 200, description: 'A repeated key returns the first post with duplicate: true and creates nothing' })
  @IsOptional()
  @IsString()
  @Matches(/^[\x21-\x7e]{1,200}$/, { message: 'idempotency_key must be 1 to 200 visible ASCII characters' })
  idempotency_key?: string | null;
}

export class ListPlannedPostsQueryDto extends PickType(CursorPageQueryDto, ['limit'] as const) {
  @ApiPropertyOptional({ enum: PLANNED_POST_STATUSES })
  @IsOptional()
  @IsIn(PLANNED_POST_STATUSES)
  status?: string;
}

export class PlannedTargetDto {
  @ApiProperty({ enum: PLATFORMS }) platform: string;
  @ApiProperty() id: number;
  @ApiProperty({ enum: TARGET_STATUSES }) status: string;
  @ApiProperty() publish_at: string;
  @ApiProperty({ type: String, nullable: true }) permalink: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Media id (instagram) or video id (youtube)' }) external_id: string | null;
  @ApiProperty({ type: String, nullable: true }) published_at: string | null;
  @ApiProperty({ type: String, nullable: true }) error: string | null;
}

export class PlannedPostDto {
  @ApiProperty() id: number;
  @ApiProperty({ enum: PLANNED_POST_STATUSES, description: 'open until every target ended; partial when some targets failed' }) status: string;
  @ApiProperty() publish_at: string;
  @ApiProperty({ type: ReelSourceDto }) source: ReelSourceDto;
  @ApiProperty() caption: string;
  @ApiProperty({ type: String, nullable: true }) title: string | null;
  @ApiProperty({ type: String, nullable: true }) idempotency_key: string | null;
  @ApiProperty({ type: [PlannedTargetDto] }) targets: PlannedTargetDto[];
  @ApiProperty({ description: 'true when an earlier request with the same idempotency_key created this post' }) duplicate: boolean;
  @ApiProperty({ type: [String], description: 'Hints about the post' }) notes: string[];
  @ApiProperty() created_at: string;
}
