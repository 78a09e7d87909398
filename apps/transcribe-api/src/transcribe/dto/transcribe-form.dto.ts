import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { OUTPUT_FORMAT_VALUES } from '../../formats/transcript-output';
import { DEFAULT_ENGINE, DEFAULT_TASK, ENGINES, TASKS, type EngineName, type TranscriptionTask } from '../../transcription/job-record';
import { toBoolean, toInteger } from '../../validation/transforms';
import { normaliseLanguage, WHISPER_LANGUAGES } from '../../transcription/languages';


const FORMAT_LIST = OUTPUT_FORMAT_VALUES.join(', ');

const emptyToUndefined = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && value.trim() === '' ? undefined : typeof value === 'string' ? value.trim() : value;

/** `EN`, ` fr `, `en-US` become the code engines take; an unknown value stays as sent, for the error. */
const toLanguageCode = ({ value }: { value: unknown }): unknown => {
  const trimmed = emptyToUndefined({ value });
  return typeof trimmed === 'string' ? (normaliseLanguage(trimmed) ?? trimmed) : trimmed;
};

/** Options of the engine beyond language and task, shared by the multipart forms and `/asr`'s query. */
export class EngineOptionsDto {
  @ApiPropertyOptional({ description: 'Text that steers the vocabulary and style (sent as `prompt` / `initial_prompt`).', maxLength: 2000 })
  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  @MaxLength(2000)
  initial_prompt?: string;

  @ApiPropertyOptional({ type: Boolean, description: 'Voice activity detection filter: skips the parts without speech. Only an engine speaking whisper-asr-webservice\'s protocol (`*_PROTOCOL=asr`) can; elsewhere 422.' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'vad_filter must be true or false' })
  vad_filter?: boolean;

  @ApiPropertyOptional({ type: Boolean, description: 'Speaker labels (`segments[].speaker`, `<v Speaker 1>` in SRT/VTT). Only a WhisperX deployment of whisper-asr-webservice can (`*_PROTOCOL=asr`, `*_DIARIZATION=true`); elsewhere 422.' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'diarize must be true or false' })
  diarize?: boolean;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 32, description: 'Fewest speakers to find (with diarize=true).' })
  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: 'min_speakers must be a whole number' })
  @Min(1)
  @Max(32)
  min_speakers?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 32, description: 'Most speakers to find (with diarize=true).' })
  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: 'max_speakers must be a whole number' })
  @Min(1)
  @Max(32)
  max_speakers?: number;
}

/** The text fields of `POST /transcribe` and `POST /transcribe/async` (multipart, beside `file`). */
export class TranscribeFormDto extends EngineOptionsDto {
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

  @ApiPropertyOptional({
    enum: OUTPUT_FORMAT_VALUES,
    default: 'json',
    description:
      'Format of the answer (POST /transcribe only; a job\'s is chosen when reading it): `json` (default: text, language, duration, segments `{id,start,end,text}`), `verbose_json` (everything the engine gave: segment probabilities, `words` with timings), `text` (`txt`), `srt`, `vtt`, `tsv` (Whisper\'s: milliseconds). Subtitles: at most 2 lines of 42 characters per cue, longer segments split at word timings.',
  })
  @IsOptional()
  @Transform(emptyToUndefined)
  @IsIn(OUTPUT_FORMAT_VALUES, { message: `response_format must be one of: ${FORMAT_LIST}` })
  response_format?: string;

  @ApiPropertyOptional({ enum: OUTPUT_FORMAT_VALUES, description: 'Same as `response_format` (whisper-asr-webservice\'s name).' })
  @IsOptional()
  @Transform(emptyToUndefined)
  @IsIn(OUTPUT_FORMAT_VALUES, { message: `output must be one of: ${FORMAT_LIST}` })
  output?: string;
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
