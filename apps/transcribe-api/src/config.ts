import { BaseConfig } from '@platform/platform';
import { ENGINE_PROTOCOLS, type EngineProtocol } from './engines/engine-client';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  Validate,
  ValidatorConstraint,
  type ValidationArguments,
  type ValidatorConstraintInterface,
} from 'class-validator';

export const ROLES = ['all', 'api', 'worker'] as const;
export type TranscribeRole = (typeof ROLES)[number];

@ValidatorConstraint({ name: 'roleNeedsRedis' })
class RoleNeedsRedis implements ValidatorConstraintInterface {
  validate(role: unknown, args: ValidationArguments): boolean {
    return role === 'all' || !!(args.object as TranscribeConfig).REDIS_URL;
  }
  defaultMessage(args: ValidationArguments): string {
    return `TRANSCRIBE_ROLE=${String(args.value)} splits the API and the workers into separate processes, which share jobs only through Redis: set REDIS_URL, or use TRANSCRIBE_ROLE=all`;
  }
}

@ValidatorConstraint({ name: 'diarizationNeedsAsr' })
class DiarizationNeedsAsr implements ValidatorConstraintInterface {
  validate(on: unknown, args: ValidationArguments): boolean {
    const config = args.object as TranscribeConfig;
    const protocol = args.property.startsWith('FASTER_') ? config.FASTER_WHISPER_PROTOCOL : config.WHISPER_PROTOCOL;
    return on !== true || protocol === 'asr';
  }
  defaultMessage(args: ValidationArguments): string {
    const engine = args.property.replace(/_DIARIZATION$/, '');
    return `${args.property}=true needs ${engine}_PROTOCOL=asr: only whisper-asr-webservice's /asr (a WhisperX deployment) gives speakers`;
  }
}

const HTTP_URL = /^https?:\/\/\S+$/;

/** transcribe-api's variables (README.md lists them with their defaults). */
export class TranscribeConfig extends BaseConfig {
  /** Higher-quality engine behind queue `transcription` (OpenAI-compatible server, or whisper-asr-webservice with WHISPER_PROTOCOL=asr). */
  @IsOptional()
  @Matches(HTTP_URL, { message: 'WHISPER_URL must be an http:// or https:// URL of a transcription server' })
  WHISPER_URL?: string;

  /** Faster engine behind queue `faster-whisper-transcription`. */
  @IsOptional()
  @Matches(HTTP_URL, { message: 'FASTER_WHISPER_URL must be an http:// or https:// URL of a transcription server' })
  FASTER_WHISPER_URL?: string;

  @IsString()
  @IsNotEmpty()
  WHISPER_MODEL = 'whisper-1';

  /** `openai` (`/v1/audio/transcriptions`) or `asr` (whisper-asr-webservice's `/asr`, WhisperX for speakers). */
  @IsIn(ENGINE_PROTOCOLS)
  WHISPER_PROTOCOL: EngineProtocol = 'openai';

  @IsIn(ENGINE_PROTOCOLS)
  FASTER_WHISPER_PROTOCOL: EngineProtocol = 'openai';

  /** Sent as `Authorization: Bearer …` (the hosted OpenAI API, or a proxy in front of the engine). */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  WHISPER_API_KEY?: string;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  FASTER_WHISPER_API_KEY?: string;

  /** The `asr` engine is a WhisperX deployment with diarization set up: `diarize` is honoured. */
  @IsBoolean()
  @Validate(DiarizationNeedsAsr)
  WHISPER_DIARIZATION = false;

  @IsBoolean()
  @Validate(DiarizationNeedsAsr)
  FASTER_WHISPER_DIARIZATION = false;

  /** Synchronous calls (POST /transcribe, /asr, /detect-language) the engine is sent at once: by every API replica together with REDIS_URL, by each process without it. */
  @IsInt()
  @Min(1)
  @Max(64)
  WHISPER_SYNC_CONCURRENCY = 1;

  @IsInt()
  @Min(1)
  @Max(64)
  FASTER_WHISPER_SYNC_CONCURRENCY = 2;

  /** Jobs one worker process runs at once on each queue; unset: TRANSCRIBE_WORKER_CONCURRENCY. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(64)
  WHISPER_WORKER_CONCURRENCY?: number;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(64)
  FASTER_WHISPER_WORKER_CONCURRENCY?: number;

  /** Synchronous calls that may wait for a free slot, per engine; more are answered 503 at once. */
  @IsInt()
  @Min(0)
  @Max(1000)
  TRANSCRIBE_SYNC_QUEUE_SIZE = 8;

  /** Longest wait for a free slot before 503 with Retry-After. */
  @IsInt()
  @Min(0)
  TRANSCRIBE_SYNC_MAX_WAIT_SECONDS = 60;

  /** How long a finished job's result stays after it was first read (GET status); TRANSCRIBE_RESULT_TTL_SECONDS applies while unread. */
  @IsInt()
  @Min(1)
  TRANSCRIBE_READ_RESULT_TTL_SECONDS = 600;

  @IsString()
  @IsNotEmpty()
  FASTER_WHISPER_MODEL = 'whisper-1';

  /** all: API and workers in one process; api: only enqueues; worker: only runs jobs. */
  @IsIn(ROLES)
  @Validate(RoleNeedsRedis)
  TRANSCRIBE_ROLE: TranscribeRole = 'all';

  @IsInt()
  @Min(1)
  TRANSCRIBE_MAX_UPLOAD_BYTES = 500 * 1024 * 1024;

  @IsInt()
  @Min(1)
  TRANSCRIBE_RESULT_TTL_SECONDS = 3600;

  @IsInt()
  @Min(1)
  TRANSCRIBE_ENGINE_TIMEOUT_SECONDS = 1800;

  @IsInt()
  @Min(1)
  @Max(10)
  TRANSCRIBE_ENGINE_ATTEMPTS = 3;

  @IsInt()
  @Min(0)
  TRANSCRIBE_ENGINE_RETRY_BASE_MS = 1000;

  /** Jobs one worker process runs at once, per queue (engines hold a GPU: keep it low). */
  @IsInt()
  @Min(1)
  @Max(64)
  TRANSCRIBE_WORKER_CONCURRENCY = 1;

  /** Key prefix of the BullMQ queues in Redis. */
  @Matches(/^[A-Za-z0-9_:.-]+$/, { message: 'TRANSCRIBE_QUEUE_PREFIX may only hold letters, digits and _ : . -' })
  TRANSCRIBE_QUEUE_PREFIX = 'bull';

  /** How long a worker's lock on a job lasts without renewal; a dead worker's job is retried after it. */
  @IsInt()
  @Min(1000)
  TRANSCRIBE_LOCK_DURATION_MS = 30_000;

  /** How often workers look for jobs whose worker died. */
  @IsInt()
  @Min(1000)
  TRANSCRIBE_STALLED_INTERVAL_MS = 30_000;

  /** How long an API call waits for Redis before answering 503 (ioredis would otherwise wait for it to come back). */
  @IsInt()
  @Min(100)
  TRANSCRIBE_REDIS_TIMEOUT_MS = 5_000;

  /** How many times a job whose worker died is put back before it fails. */
  @IsInt()
  @Min(0)
  TRANSCRIBE_MAX_STALLED_COUNT = 1;
}
