import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBase64, IsIn, IsNotEmpty, IsOptional, IsString } from 'class-validator';

export const VIDEO_CONTENT_TYPES = ['video/mp4', 'video/quicktime', 'application/octet-stream'] as const;

/** An uploaded video, usable as `source: {video_id}` of a reel or a planned post. */
export class VideoDto {
  @ApiProperty({ format: 'uuid' }) video_id: string;
  @ApiProperty({ description: 'Size in megabytes (2 decimals)' }) size_mb: number;
  @ApiProperty({ enum: ['stored', 'uploaded', 'deleted'], description: '`stored`: in the service’s storage; `uploaded`: sent to a platform at least once' }) file_status: string;
  @ApiProperty({ enum: VIDEO_CONTENT_TYPES }) content_type: string;
  @ApiProperty() created_at: string;
}

/** The MCP tool `upload_video` (a tool call carries JSON, so the bytes come base64-encoded). */
export class UploadVideoBase64Dto {
  @ApiProperty({ description: 'The video file, base64' })
  @IsString()
  @IsNotEmpty()
  @IsBase64()
  content_base64: string;

  @ApiPropertyOptional({ enum: VIDEO_CONTENT_TYPES, default: 'video/mp4' })
  @IsOptional()
  @IsIn(VIDEO_CONTENT_TYPES)
  content_type?: string;
}
