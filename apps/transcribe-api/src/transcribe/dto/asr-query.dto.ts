import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { Equals, IsBoolean, IsIn, IsOptional } from 'class-validator';
import { ENGINES, TASKS, type EngineName, type TranscriptionTask } from '../../transcription/job-record';
import { normaliseLanguage, WHISPER_LANGUAGES } from '../../transcription/languages';
import { toBoolean, trimmed } from '../../validation/transforms';
import { EngineOptionsDto } from './transcribe-form.dto';

export const ASR_OUTPUTS = ['txt', 'vtt', 'srt', 'tsv', 'json'] as const;
export type AsrOutput = (typeof ASR_OUTPUTS)[number];

const toLanguageCode = ({ value }: { value: unknown }): unknown => {
  const v = trimmed({ value });
  return typeof v === 'string' ? (normaliseLanguage(v) ?? v) : v;
};

const ENCODE_DOC =
  'Decode the audio through ffmpeg first (default true). Only `true` is served: the engine decodes the container itself; raw PCM (`encode=false`) is refused with 422.';

/** whisper-asr-webservice's `/detect-language` query (its parameters, plus `engine`). */
export class DetectLanguageQueryDto {
  @ApiPropertyOptional({ type: Boolean, default: true, description: ENCODE_DOC })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'encode must be true or false' })
  @Equals(true, { message: 'encode=false (raw 16 kHz PCM) is not supported: send the audio in its container (WAV, MP3, …) with encode=true' })
  encode?: boolean;

  @ApiPropertyOptional({ enum: ENGINES, description: 'Engine to use (this service\'s addition; default faster-whisper, or the one that can honour the options).' })
  @IsOptional()
  @Transform(trimmed)
  @IsIn(ENGINES, { message: `engine must be one of: ${ENGINES.join(', ')}` })
  engine?: EngineName;
}

/** whisper-asr-webservice's `/asr` query (its parameters, plus `engine`: by default faster-whisper, or with diarize=true the engine that diarizes). */
export class AsrQueryDto extends IntersectionType(EngineOptionsDto, DetectLanguageQueryDto) {
  @ApiPropertyOptional({ enum: TASKS, default: 'transcribe' })
  @IsOptional()
  @Transform(trimmed)
  @IsIn(TASKS, { message: `task must be one of: ${TASKS.join(', ')}` })
  task?: TranscriptionTask;

  @ApiPropertyOptional({ enum: [...WHISPER_LANGUAGES], description: 'Language code; omit it to detect the language.' })
  @IsOptional()
  @Transform(toLanguageCode)
  @IsIn([...WHISPER_LANGUAGES], { message: 'language must be a language code Whisper knows, such as "en" or "fr" (or omit it to detect the language)' })
  language?: string;

  @ApiPropertyOptional({ type: Boolean, default: false, description: 'Word-level timestamps in the `json` output (`segments[].words`).' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'word_timestamps must be true or false' })
  word_timestamps?: boolean;

  @ApiPropertyOptional({ enum: ASR_OUTPUTS, default: 'txt' })
  @IsOptional()
  @Transform(trimmed)
  @IsIn(ASR_OUTPUTS, { message: `output must be one of: ${ASR_OUTPUTS.join(', ')}` })
  output?: AsrOutput;
}

/** Swagger only: the multipart body of `/asr` and `/detect-language`. */
export class AsrUploadDto {
  @ApiProperty({ type: 'string', format: 'binary', description: 'The audio or video file.' })
  audio_file: unknown;
}

export class DetectLanguageResponseDto {
  @ApiProperty({ example: 'french', description: 'Whisper\'s name of the language' }) detected_language: string;
  @ApiProperty({ example: 'fr' }) language_code: string;
  @ApiProperty({
    nullable: true,
    type: Number,
    example: 0.97,
    description: 'The engine\'s probability; null from an OpenAI-compatible engine, whose protocol gives none (the language then comes from a transcription of the file).',
  })
  confidence: number | null;
}
