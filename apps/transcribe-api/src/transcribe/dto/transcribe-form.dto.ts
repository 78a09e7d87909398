import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional } from 'class-validator';
import { DEFAULT_ENGINE, DEFAULT_TASK, ENGINES, TASKS, type EngineName, type TranscriptionTask } from '../../jobs/job-record';
import { normaliseLanguage, WHISPER_LANGUAGES } from '../languages';

const emptyToUndefined = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && value.trim() === '' ? undefined : typeof value === 'string' ? value.trim() : value;

/** `EN`, ` fr `, `en-US` become the code engines take; an unknown value stays as sent, for the error. */
const toLanguageCode = ({ value }: { value: unknown }): unknown => {
  const trimmed = emptyToUndefined({ value });
  return typeof trimmed === 'string' ? (normaliseLanguage(trimmed) ?? trimmed) : trimmed;
};

/** The text fields of `POST /transcribe` and `POST /transcribe/async` (multipart, beside `file`). */
export class TranscribeFormDto {
  @ApiPropertyOptional({
    description:
      'Spoken language as an ISO 639-1 code (`fr`, `en`, …) among the ~100 languages Whisper knows; case and a region subtag are ignored (`en-US` → `en`). Omit it to let the engine detect the language.',
    example: 'fr',
  })
  @IsOptional()
  @Transform(toLanguageCode)
  @IsIn([...WHISPER_LANGUAGES], { message: 'language must be an ISO 639-1 code that Whisper knows, such as "en" or "fr" (or omit it to detect the language)' })
  language?: string;

  @ApiPropertyOptional({
    enum: ENGINES,
    default: DEFAULT_ENGINE,
    description:
      'Engine, and with it the queue: `whisper` (higher quality, queue `transcription`, Redis database 0) or `faster-whisper` (faster, queue `faster-whisper-transcription`, Redis database 1). Default `faster-whisper`.',
  })
  @IsOptional()
  @Transform(emptyToUndefined)
  @IsIn(ENGINES, { message: `engine must be one of: ${ENGINES.join(', ')}` })
  engine?: EngineName;

  @ApiPropertyOptional({
    enum: TASKS,
    default: DEFAULT_TASK,
    description:
      '`transcribe` writes down the speech in its language; `translate` writes it in English (the engine\'s `/v1/audio/translations`; `language` is then not sent).',
  })
  @IsOptional()
  @Transform(emptyToUndefined)
  @IsIn(TASKS, { message: `task must be one of: ${TASKS.join(', ')}` })
  task?: TranscriptionTask;
}

/** Swagger only: the whole multipart body. */
export class TranscribeUploadDto extends TranscribeFormDto {
  @ApiProperty({
    type: 'string',
    format: 'binary',
    description:
      'The audio or video file (max 500 MB by default, `TRANSCRIBE_MAX_UPLOAD_BYTES`). Its type is checked from its content: WAV, MP3, OGG/Opus, FLAC, MP4/M4A/MOV/3GP, WebM/MKV, AAC (ADTS), AMR, AIFF, CAF, WMA/ASF, AVI.',
  })
  file: unknown;
}

export class StatsQueryDto {
  @ApiPropertyOptional({ enum: ENGINES, default: DEFAULT_ENGINE, description: 'Which queue the top-level fields describe; `queues` always lists both.' })
  @IsOptional()
  @IsIn(ENGINES, { message: `engine must be one of: ${ENGINES.join(', ')}` })
  engine?: EngineName;
}
