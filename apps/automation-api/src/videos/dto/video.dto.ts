import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBase64, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, IsUrl, IsUUID, Max, Min } from 'class-validator';

export const VIDEO_CONTENT_TYPES = ['video/mp4', 'video/quicktime', 'application/octet-stream'] as const;

/** An uploaded video, usable as `source: {video_id}` of a reel or a planned post. */
export class VideoDto {
  @ApiProperty({ format: 'uuid' }) video_id: string;
  @ApiProperty({ description: 'Size in megabytes (2 decimals)' }) size_mb: number;
  @ApiProperty({ enum: ['stored', 'uploaded', 'deleted'], description: '`stored`: in the service’s storage; `uploaded`: sent to a platform at least once' }) file_status: string;
  @ApiProperty({ enum: VIDEO_CONTENT_TYPES }) content_type: string;
  @ApiProperty() created_at: string;
}

/**
 * The MCP tool `upload_video` (a tool call carries JSON): exactly one of the file base64-encoded
 * (small files: a call is bounded by the 1 MB JSON body limit), a URL the service downloads, or the
 * upload_id of an upload sent in pieces with `upload_video_chunk`.
 */
export class UploadVideoToolDto {
  @ApiPropertyOptional({ description: 'The video file, base64 (up to ~700 KB of video per call)' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @IsBase64()
  content_base64?: string;

  @ApiPropertyOptional({ description: 'https URL of the video file; the service downloads it (at most VIDEO_MAX_MB)' })
  @IsOptional()
  @IsUrl({ protocols: ['https', 'http'], require_protocol: true, require_tld: false }, { message: 'video_url must be an https URL' })
  video_url?: string;

  @ApiPropertyOptional({ description: 'Finishes an upload sent in pieces with upload_video_chunk', format: 'uuid' })
  @IsOptional()
  @IsUUID()
  upload_id?: string;

  @ApiPropertyOptional({ enum: VIDEO_CONTENT_TYPES, default: 'video/mp4' })
  @IsOptional()
  @IsIn(VIDEO_CONTENT_TYPES)
  content_type?: string;
}

/** The MCP tool `upload_video_chunk`: one piece of a file, at its byte offset. */
export class UploadVideoChunkDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'The upload the chunk belongs to; absent for the first chunk (offset 0), which starts a new upload' })
  @IsOptional()
  @IsUUID()
  upload_id?: string;

  @ApiProperty({ minimum: 0, description: 'Byte offset of the chunk in the file: the received_bytes of the previous answer (a chunk sent again is accepted)' })
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  offset: number;

  @ApiProperty({ description: 'The chunk, base64 (up to ~700 KB of video per call: the JSON body limit is 1 MB)' })
  @IsString()
  @IsNotEmpty()
  @IsBase64()
  chunk_base64: string;
}

/** Answer of `upload_video_chunk`. */
export class VideoChunkDto {
  @ApiProperty({ format: 'uuid' }) upload_id: string;
  @ApiProperty({ description: 'Bytes received so far: the offset of the next chunk' }) received_bytes: number;
}
