import { applyDecorators, Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res, UploadedFile, UseInterceptors } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConsumes,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiResponse,
  ApiServiceUnavailableResponse,
  ApiTags,
  ApiUnprocessableEntityResponse,
  ApiUnsupportedMediaTypeResponse,
} from '@nestjs/swagger';
import { ApiError } from '@platform/errors';
import type { Response } from 'express';
import type { JobRecord, TranscriptionResult } from '../jobs/job-record';
import type { StoredAudioFile } from '../uploads/audio-disk-storage';
import { UploadErrorsInterceptor } from '../uploads/upload-errors.interceptor';
import { AsyncSubmitResponseDto, ErrorDto, JobStatusDto, QueueStatsResponseDto, TranscriptionResultDto } from './dto/responses.dto';
import { StatsQueryDto, TranscribeFormDto, TranscribeUploadDto } from './dto/transcribe-form.dto';
import { TranscribeService } from './transcribe.service';

const missingFile = (): ApiError =>
  new ApiError(400, 'FILE_REQUIRED', 'No file was uploaded.', {
    suggestion: 'Send multipart/form-data with the audio in the field named "file" (curl -F file=@audio.mp3).',
  });

/** Aborts when the connection closes before the answer was sent (the client gave up waiting). */
function abortedWhenClientLeaves(res: Response): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(new Error('client closed the connection'));
  });
  return controller.signal;
}

const UploadErrors = () =>
  applyDecorators(
    ApiConsumes('multipart/form-data'),
    ApiBody({ type: TranscribeUploadDto }),
    ApiPayloadTooLargeResponse({ type: ErrorDto, description: 'file larger than TRANSCRIBE_MAX_UPLOAD_BYTES (500 MB)' }),
    ApiUnsupportedMediaTypeResponse({ type: ErrorDto, description: 'the bytes are not an audio or video container' }),
    ApiBadRequestResponse({ type: ErrorDto, description: 'no `file` part, an empty file, or a malformed multipart body' }),
    ApiUnprocessableEntityResponse({ type: ErrorDto, description: 'invalid `language`, `engine` or `task`, or an unknown field' }),
    ApiResponse({ status: 507, type: ErrorDto, description: 'no disk space left under DATA_DIR for the upload' }),
  );

@ApiTags('transcription')
@Controller()
export class TranscribeController {
  constructor(private readonly service: TranscribeService) {}

  @Post('transcribe')
  @HttpCode(200)
  @UseInterceptors(UploadErrorsInterceptor, FileInterceptor('file'))
  @ApiOperation({
    summary: 'Transcribe a file synchronously',
    description:
      'Streams the upload to disk, sends it to the chosen engine and answers when the text is ready (the upload is then removed). Long files can outlast HTTP timeouts of proxies: use POST /transcribe/async for them.',
  })
  @UploadErrors()
  @ApiOkResponse({ type: TranscriptionResultDto })
  @ApiResponse({ status: 502, type: ErrorDto, description: 'the engine failed or is unreachable (after retries)' })
  @ApiResponse({ status: 504, type: ErrorDto, description: 'the engine did not answer within TRANSCRIBE_ENGINE_TIMEOUT_SECONDS' })
  @ApiServiceUnavailableResponse({ type: ErrorDto, description: 'the chosen engine is not configured' })
  async transcribe(
    @UploadedFile() file: StoredAudioFile | undefined,
    @Body() form: TranscribeFormDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<TranscriptionResult> {
    if (!file) throw missingFile();
    return this.service.transcribeNow(file, form, abortedWhenClientLeaves(res));
  }

  @Post('transcribe/async')
  @HttpCode(200)
  @UseInterceptors(UploadErrorsInterceptor, FileInterceptor('file'))
  @ApiOperation({
    summary: 'Queue a file for transcription',
    description:
      'Streams the upload to disk and queues a job on the chosen engine\'s queue. Poll GET /transcribe/status/{job_id}. The upload is removed when the job finishes or fails; `transcribe.job_finished` is published on the event bus.',
  })
  @UploadErrors()
  @ApiOkResponse({ type: AsyncSubmitResponseDto })
  @ApiServiceUnavailableResponse({ type: ErrorDto, description: 'the chosen engine is not configured, or Redis is unreachable' })
  async submit(
    @UploadedFile() file: StoredAudioFile | undefined,
    @Body() form: TranscribeFormDto,
    @Req() req: { id?: unknown },
  ): Promise<AsyncSubmitResponseDto> {
    if (!file) throw missingFile();
    return this.service.submit(file, form, typeof req.id === 'string' ? req.id : undefined);
  }

  @Get('transcribe/status/:job_id')
  @ApiOperation({
    summary: 'Status of a queued job',
    description:
      'Status moves queued → started → finished | failed. Records are kept TRANSCRIBE_RESULT_TTL_SECONDS (default 3600) after the job ends, then answer 404.',
  })
  @ApiOkResponse({ type: JobStatusDto })
  @ApiNotFoundResponse({ type: ErrorDto, description: 'unknown job id, or its record expired' })
  async status(@Param('job_id') jobId: string): Promise<JobRecord> {
    return this.service.status(jobId);
  }

  @Get('queue/stats')
  @ApiOperation({
    summary: 'Queue counters',
    description: 'Top-level fields describe one queue (`engine` query, default faster-whisper); `queues` lists both.',
  })
  @ApiOkResponse({ type: QueueStatsResponseDto })
  async stats(@Query() query: StatsQueryDto): Promise<QueueStatsResponseDto> {
    return this.service.stats(query.engine);
  }
}
