import { applyDecorators, Body, Controller, Get, HttpCode, Post, Query, Req, Res, UploadedFile, UseInterceptors } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConsumes,
  ApiOkResponse,
  ApiProduces,
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
import { ErrorDto } from '../errors/detail-error.dto';
import { sendRendered } from '../formats/send-rendered';
import type { StoredAudioFile } from '../uploads/audio-disk-storage';
import { TranscriptionResultDto } from '../transcription/dto/transcription-result.dto';
import { UploadErrorsInterceptor } from '../uploads/upload-errors.interceptor';
import { AsyncSubmitResponseDto, QueueStatsResponseDto } from './dto/responses.dto';
import { StatsQueryDto, TranscribeFormDto, TranscribeUploadDto } from './dto/transcribe-form.dto';
import { TranscribeService } from './transcribe.service';

export const missingFile = (field = 'file'): ApiError =>
  new ApiError(400, 'FILE_REQUIRED', 'No file was uploaded.', {
    suggestion: `Send multipart/form-data with the audio in the field named "${field}" (curl -F ${field}=@audio.mp3).`,
  });

/** 503 of the sync gate, documented on every synchronous route. */
export const ApiEngineBusy = () =>
  ApiServiceUnavailableResponse({
    type: ErrorDto,
    description:
      'the chosen engine is not configured, or busy: *_SYNC_CONCURRENCY calls running and TRANSCRIBE_SYNC_QUEUE_SIZE waiting (or no slot within TRANSCRIBE_SYNC_MAX_WAIT_SECONDS); `Retry-After` says when to retry',
  });

/** Aborts when the connection closes before the answer was sent (the client gave up waiting). */
export function abortedWhenClientLeaves(res: Response): AbortSignal {
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
    ApiUnprocessableEntityResponse({ type: ErrorDto, description: 'invalid `language`, `engine`, `task` or another field, an unknown field, or an option the engine cannot honour (`vad_filter`, `diarize`)' }),
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
      'Streams the upload to disk, sends it to the chosen engine and answers when the text is ready (the upload is then removed), in `response_format` (`json` default, `verbose_json`, `text`, `srt`, `vtt`, `tsv`). Each engine takes *_SYNC_CONCURRENCY synchronous calls at once (shared by every API replica through Redis when REDIS_URL is set, else per process); up to TRANSCRIBE_SYNC_QUEUE_SIZE more wait (at most TRANSCRIBE_SYNC_MAX_WAIT_SECONDS), the rest get 503 with `Retry-After`. Long files can outlast HTTP timeouts of proxies: use POST /transcribe/async for them.',
  })
  @UploadErrors()
  @ApiProduces('application/json', 'text/plain', 'text/vtt', 'application/x-subrip', 'text/tab-separated-values')
  @ApiOkResponse({ type: TranscriptionResultDto, description: 'JSON for json/verbose_json; the document for text, srt, vtt, tsv' })
  @ApiResponse({ status: 502, type: ErrorDto, description: 'the engine failed or is unreachable (after retries)' })
  @ApiResponse({ status: 504, type: ErrorDto, description: 'the engine did not answer within TRANSCRIBE_ENGINE_TIMEOUT_SECONDS' })
  @ApiEngineBusy()
  async transcribe(
    @UploadedFile() file: StoredAudioFile | undefined,
    @Body() form: TranscribeFormDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<object | string> {
    if (!file) throw missingFile();
    return sendRendered(res, await this.service.transcribeNow(file, form, abortedWhenClientLeaves(res)));
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
