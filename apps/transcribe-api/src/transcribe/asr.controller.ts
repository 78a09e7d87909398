import { Controller, HttpCode, Post, Query, Res, UploadedFile, UseInterceptors } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { ApiBadRequestResponse, ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiPayloadTooLargeResponse, ApiProduces, ApiResponse, ApiTags, ApiUnprocessableEntityResponse, ApiUnsupportedMediaTypeResponse } from '@nestjs/swagger';
import type { Response } from 'express';
import { ErrorDto } from '../errors/detail-error.dto';
import { sendRendered } from '../formats/send-rendered';
import type { StoredAudioFile } from '../uploads/audio-disk-storage';
import { UploadErrorsInterceptor } from '../uploads/upload-errors.interceptor';
import { AsrQueryDto, AsrUploadDto, DetectLanguageQueryDto, DetectLanguageResponseDto } from './dto/asr-query.dto';
import { abortedWhenClientLeaves, ApiEngineBusy, missingFile } from './transcribe.controller';
import { TranscribeService } from './transcribe.service';

/**
 * whisper-asr-webservice's two routes, so that its clients work unchanged: same paths, multipart
 * field `audio_file`, query parameters and answers (documents as `text/plain` attachments named
 * `<file>.<output>`, header `Asr-Engine`). `engine` is this service's addition.
 */
@ApiTags('whisper-asr-webservice compatibility')
@Controller()
export class AsrController {
  constructor(private readonly service: TranscribeService) {}

  @Post('asr')
  @HttpCode(200)
  @UseInterceptors(UploadErrorsInterceptor, FileInterceptor('audio_file'))
  @ApiOperation({
    summary: 'Transcribe (whisper-asr-webservice)',
    description:
      'As whisper-asr-webservice\'s POST /asr: `output` txt (default), vtt, srt, tsv or json (Whisper\'s result: text, segments, language; words with word_timestamps=true), one cue per segment. Options the engine cannot honour (vad_filter and diarize on an OpenAI-compatible engine) are refused with 422, never ignored; with diarize=true and no `engine`, the engine that diarizes is used. Synchronous: bounded like POST /transcribe.',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ type: AsrUploadDto })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'the transcript in `output`, as an attachment `<file name>.<output>`', schema: { type: 'string' } })
  @ApiBadRequestResponse({ type: ErrorDto, description: 'no `audio_file` part, an empty file, or a malformed multipart body' })
  @ApiPayloadTooLargeResponse({ type: ErrorDto })
  @ApiUnsupportedMediaTypeResponse({ type: ErrorDto })
  @ApiUnprocessableEntityResponse({ type: ErrorDto, description: 'an invalid parameter, encode=false, or an option the engine cannot honour' })
  @ApiResponse({ status: 502, type: ErrorDto, description: 'the engine failed' })
  @ApiEngineBusy()
  async asr(@UploadedFile() file: StoredAudioFile | undefined, @Query() query: AsrQueryDto, @Res({ passthrough: true }) res: Response): Promise<object | string> {
    if (!file) throw missingFile('audio_file');
    const answer = await this.service.asr(file, query, abortedWhenClientLeaves(res));
    return sendRendered(res, answer.rendered, { attachment: answer.filename, contentType: 'text/plain; charset=utf-8', headers: { 'Asr-Engine': answer.engine } });
  }

  @Post('detect-language')
  @HttpCode(200)
  @UseInterceptors(UploadErrorsInterceptor, FileInterceptor('audio_file'))
  @ApiOperation({
    summary: 'Detect the language (whisper-asr-webservice)',
    description:
      'As whisper-asr-webservice\'s POST /detect-language: `{detected_language, language_code, confidence}`. An `asr` engine answers from its own /detect-language; an OpenAI-compatible engine transcribes the file and reports its language, with confidence null (its protocol gives no probability).',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ type: AsrUploadDto })
  @ApiOkResponse({ type: DetectLanguageResponseDto })
  @ApiBadRequestResponse({ type: ErrorDto })
  @ApiUnprocessableEntityResponse({ type: ErrorDto })
  @ApiResponse({ status: 502, type: ErrorDto, description: 'the engine failed' })
  @ApiEngineBusy()
  async detectLanguage(
    @UploadedFile() file: StoredAudioFile | undefined,
    @Query() query: DetectLanguageQueryDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<DetectLanguageResponseDto> {
    if (!file) throw missingFile('audio_file');
    return this.service.detectLanguage(file, query, abortedWhenClientLeaves(res));
  }
}
