import { Controller, Headers, Post, Req } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBody, ApiConsumes, ApiCreatedResponse, ApiOperation, ApiPayloadTooLargeResponse, ApiTags, ApiUnsupportedMediaTypeResponse } from '@nestjs/swagger';
import type { Request } from 'express';
import { AccountAuth, CurrentAccount } from '../accounts/account-key.guard';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { ErrorDto } from '../common/error.dto';
import { VIDEO_CONTENT_TYPES, VideoDto } from './dto/video.dto';
import { VideosService } from './videos.service';

@ApiTags('videos')
@AccountAuth()
@Controller('api/v1/videos')
export class VideosController {
  constructor(private readonly videos: VideosService) {}

  @Post()
  @ApiOperation({
    summary: 'Upload a video file',
    description:
      'The file is the request body (Content-Type video/mp4, video/quicktime or application/octet-stream), streamed to storage. ' +
      'Use the answer’s video_id as `source: {video_id}` of a reel or a planned post. Larger than VIDEO_MAX_MB → 413.',
  })
  @ApiConsumes(...VIDEO_CONTENT_TYPES)
  @ApiBody({ schema: { type: 'string', format: 'binary' } })
  @ApiCreatedResponse({ type: VideoDto })
  @ApiBadRequestResponse({ type: ErrorDto })
  @ApiPayloadTooLargeResponse({ type: ErrorDto })
  @ApiUnsupportedMediaTypeResponse({ type: ErrorDto })
  upload(@CurrentAccount() account: AccountEntity, @Req() req: Request, @Headers('content-length') length?: string): Promise<VideoDto> {
    const declared = length && /^\d+$/.test(length) ? Number(length) : undefined;
    return this.videos.store(account.id, req.headers['content-type'], req, declared);
  }
}
