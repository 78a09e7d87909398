import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { PipeTransform } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/**
 * Path id of a post: the platform's ids are digits (letters, `_` and `-` allowed for other id
 * schemes). Anything else — dots, slashes, spaces — could not name a post and must never become part
 * of a Graph API path (`..` would reach another endpoint).
 */
export class MediaIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!/^[A-Za-z0-9_-]{1,100}$/.test(value)) throw new ApiError(400, 'VALIDATION_ERROR', 'id must be a post id as listed by GET /api/v1/posts');
    return value;
  }
}

export const POST_TYPES = ['reel', 'image', 'video', 'carousel', 'story'] as const;

export class PostDto {
  @ApiProperty() id: string;
  @ApiProperty({ enum: POST_TYPES, description: 'reel (media_product_type REELS), story, else image, video or carousel from media_type' }) type: string;
  @ApiProperty({ description: 'Publication time, ISO 8601 (UTC)' }) date: string;
  @ApiProperty({ description: 'Empty string when the post has no caption' }) caption: string;
  @ApiProperty({ description: 'Permalink' }) link: string;
  @ApiProperty() comments_count: number;
  @ApiProperty() likes: number;
  @ApiProperty({ type: String, nullable: true, description: 'thumbnail_url for videos, media_url for images' }) thumbnail: string | null;
  @ApiProperty({ type: [String], description: 'Names of the automations attached (covering this post, any status)' }) automations: string[];
  @ApiProperty({ description: 'A reel online at least 5 minutes (within the last 24 hours) without an active automation: its comments get no answer' })
  automation_missing: boolean;
}

export class ListPostsQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 50, default: 12 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(50)
  limit?: number;
}

export class ListCommentsQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 50, description: 'Newest comments first' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;
}

export class CommentDto {
  @ApiProperty() id: string;
  @ApiProperty({ description: 'Handle of the author' }) user: string;
  @ApiProperty() user_id: string;
  @ApiProperty() text: string;
  @ApiProperty({ description: 'ISO 8601 (UTC)' }) timestamp: string;
  @ApiProperty({ description: 'Already answered by the account under the comment, or by the service by reply or DM' }) answered: boolean;
  @ApiProperty({ type: String, nullable: true, enum: ['automation-api', 'other'], description: '`automation-api` (this service), `other` (another tool or a person), or null' })
  answered_by: string | null;
}
