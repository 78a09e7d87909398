import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, Matches } from 'class-validator';
import { DEFAULT_ENGINE, ENGINES, type EngineName } from '../../jobs/job-record';

const emptyToUndefined = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && value.trim() === '' ? undefined : typeof value === 'string' ? value.trim() : value;

/** The text fields of `POST /transcribe` and `POST /transcribe/async` (multipart, beside `file`). */
export class TranscribeFormDto {
  @ApiPropertyOptional({
    description: 'Spoken language as an ISO 639-1 code (`fr`, `en`, …). Omit it to let the engine detect the language.',
    example: 'fr',
  })
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^[a-z]{2,3}(-[A-Za-z]{2})?$/, { message: 'language must be an ISO 639-1 code such as "en" or "fr"' })
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
