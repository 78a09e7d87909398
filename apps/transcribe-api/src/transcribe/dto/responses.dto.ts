import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { ENGINES, JOB_STATUSES, TASKS, type EngineName, type JobStatus, type TranscriptionTask } from '../../jobs/job-record';

export class SegmentDto {
  @ApiProperty({ example: 0 }) id: number;
  @ApiProperty({ description: 'start, seconds', example: 0 }) start: number;
  @ApiProperty({ description: 'end, seconds', example: 4.2 }) end: number;
  @ApiProperty({ example: ' Bonjour à tous.' }) text: string;
  @ApiPropertyOptional({ description: 'speaker label of a diarizing engine (`SPEAKER_00`; `Speaker 1` in SRT/VTT)', example: 'SPEAKER_00' }) speaker?: string;
}

export class WordDto {
  @ApiProperty({ example: ' Bonjour' }) word: string;
  @ApiProperty({ description: 'seconds' }) start: number;
  @ApiProperty({ description: 'seconds' }) end: number;
  @ApiPropertyOptional({ description: 'recognition probability' }) probability?: number;
  @ApiPropertyOptional({ example: 'SPEAKER_00' }) speaker?: string;
}

export class JobProgressDto {
  @ApiProperty({ description: 'seconds since a worker started the job' }) elapsed_seconds: number;
  @ApiProperty({ nullable: true, type: Number, description: 'seconds of audio, from the file\'s header (WAV, FLAC, MP3, MP4/M4A; null for others)' }) audio_seconds: number | null;
  @ApiProperty({ nullable: true, type: Number, description: 'engine seconds per audio second, measured over the queue\'s last 20 finished jobs' }) real_time_factor: number | null;
  @ApiProperty({ nullable: true, type: Number, description: 'audio_seconds × real_time_factor' }) estimated_total_seconds: number | null;
  @ApiProperty({ nullable: true, type: Number }) estimated_remaining_seconds: number | null;
  @ApiProperty({ nullable: true, type: Number, description: '0–99 (never 100 before the engine answers)' }) percent: number | null;
}

export class ResultMetadataDto {
  @ApiProperty({ example: 'meeting.mp3' }) filename: string;
  @ApiProperty({ description: 'bytes', example: 4812345 }) file_size: number;
  @ApiProperty({ description: 'container found in the bytes', example: 'audio/mpeg' }) media_type: string;
  @ApiProperty({ description: 'seconds spent in the engine', example: 12.4 }) processing_time: number;
  @ApiProperty({ nullable: true, type: String, example: 'fr' }) language: string | null;
  @ApiProperty({ enum: TASKS }) task: TranscriptionTask;
  @ApiProperty({ enum: ENGINES }) service: EngineName;
}

/** Body of `POST /transcribe`, and `result` of a finished job. */
export class TranscriptionResultDto {
  @ApiProperty({ example: 'Bonjour à tous.' }) text: string;
  @ApiProperty({ nullable: true, type: String, description: 'detected (or requested) language', example: 'fr' }) language: string | null;
  @ApiProperty({ nullable: true, type: Number, description: 'audio duration, seconds', example: 4.2 }) duration: number | null;
  @ApiProperty({ type: [SegmentDto], description: '`json`: id, start, end, text (and speaker); `verbose_json` adds seek, tokens, temperature, avg_logprob, compression_ratio, no_speech_prob and words' }) segments: SegmentDto[];
  @ApiPropertyOptional({ type: [WordDto], description: '`verbose_json` only: every word with its timing' }) words?: WordDto[];
  @ApiProperty({ enum: ENGINES }) engine: EngineName;
  @ApiProperty({ example: 'whisper-1' }) model: string;
  @ApiProperty({ description: 'seconds spent in the engine', example: 12.4 }) processing_time: number;
  @ApiProperty({ type: ResultMetadataDto }) metadata: ResultMetadataDto;
}

export class AsyncSubmitResponseDto {
  @ApiProperty({ format: 'uuid' }) job_id: string;
  @ApiProperty({ enum: ['queued'] }) status: 'queued';
  @ApiProperty({ example: 'Transcription job queued: meeting.mp3 (queue faster-whisper-transcription, 0 job(s) ahead); poll /transcribe/status/{job_id} until status is finished or failed.' }) message: string;
  @ApiProperty({ description: 'waiting jobs ahead of this one in its queue (0 = next), as the origin RQ service counts', example: 0 }) queue_position: number;
  @ApiProperty({
    description: 'seconds until a worker starts the job: jobs running and ahead, shared among the workers, each taking the mean time of the last 20 finished jobs (180 s / 45 s before any)',
    example: 0,
  })
  estimated_wait: number;
  @ApiProperty({ enum: ENGINES }) engine: EngineName;
  @ApiProperty({ example: 'faster-whisper-transcription' }) queue_name: string;
  @ApiProperty({ example: '/transcribe/status/0b6d…' }) status_url: string;
}

export class JobStatusDto {
  @ApiProperty({ format: 'uuid' }) job_id: string;
  @ApiProperty({ enum: JOB_STATUSES, description: 'queued → started → finished | failed; cancelled after DELETE /transcribe/jobs/{id}' }) status: JobStatus;
  @ApiProperty({ description: 'what the status means and what to do next' }) message: string;
  @ApiProperty({ enum: ENGINES }) engine: EngineName;
  @ApiProperty({ example: 'faster-whisper-transcription' }) queue_name: string;
  @ApiProperty({ nullable: true, type: String, description: 'requested language, then the detected one once finished' }) language: string | null;
  @ApiProperty({ enum: TASKS }) task: TranscriptionTask;
  @ApiProperty() filename: string;
  @ApiProperty({ description: 'bytes' }) file_size: number;
  @ApiProperty({ example: 'audio/wav' }) media_type: string;
  @ApiProperty({ nullable: true, type: Number, description: 'seconds of audio, once finished' }) audio_duration: number | null;
  @ApiProperty({ nullable: true, type: Number, description: 'while queued: waiting jobs ahead of it (0 = next)' }) queue_position: number | null;
  @ApiProperty({ description: 'times a worker started the job (2 after a worker died mid-job and another took over)' }) attempts: number;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) started_at: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'date-time', description: 'when it finished or failed' }) ended_at: string | null;
  @ApiPropertyOptional({ type: TranscriptionResultDto, nullable: true, description: 'when finished' }) result: TranscriptionResultDto | null;
  @ApiProperty({ nullable: true, type: String, description: 'when failed: why' }) error: string | null;
  @ApiProperty({ nullable: true, type: JobProgressDto, description: 'while started: elapsed time and the estimate' }) progress: JobProgressDto | null;
  @ApiProperty({
    nullable: true,
    type: String,
    format: 'date-time',
    description: 'when the record and its result are removed: TRANSCRIBE_RESULT_TTL_SECONDS after the end, or TRANSCRIBE_READ_RESULT_TTL_SECONDS after the first read when sooner',
  })
  expires_at: string | null;
}

export class JobSummaryDto extends OmitType(JobStatusDto, ['result'] as const) {}

export class JobListDto {
  @ApiProperty({ type: [JobSummaryDto], description: 'newest first; records without their result' }) jobs: JobSummaryDto[];
  @ApiProperty({ description: 'jobs matching the filters' }) total: number;
  @ApiProperty() page: number;
  @ApiProperty() limit: number;
}

export class CancelJobDto {
  @ApiProperty({ format: 'uuid' }) job_id: string;
  @ApiProperty({ enum: ['cancelled', 'deleted'], description: '`cancelled`: a queued or running job stopped; `deleted`: an ended job\'s record removed' }) status: 'cancelled' | 'deleted';
  @ApiProperty() message: string;
}

export class QueueStatsDto {
  @ApiProperty({ example: 'faster-whisper-transcription' }) queue_name: string;
  @ApiProperty({ enum: ENGINES }) engine: EngineName;
  @ApiProperty({ description: 'jobs waiting' }) queued: number;
  @ApiProperty({ description: 'jobs running' }) started: number;
  @ApiProperty({ description: 'finished jobs still kept (TRANSCRIBE_RESULT_TTL_SECONDS)' }) finished: number;
  @ApiProperty({ description: 'failed jobs still kept' }) failed: number;
  @ApiProperty({ description: 'worker processes consuming the queue' }) workers: number;
}

export class QueueStatsResponseDto extends QueueStatsDto {
  @ApiProperty({ type: [QueueStatsDto], description: 'both queues' }) queues: QueueStatsDto[];
}

export class HealthDto {
  @ApiProperty({ enum: ['healthy', 'unhealthy'], description: 'healthy when the queue store answers, every configured engine answers, and at least one engine is configured' })
  status: 'healthy' | 'unhealthy';
  @ApiProperty({ enum: ['connected', 'disconnected', 'in-memory'], description: '`in-memory` when REDIS_URL is unset (embedded queue)' })
  redis: 'connected' | 'disconnected' | 'in-memory';
  @ApiProperty({ enum: ['healthy', 'unhealthy', 'not_configured'], description: 'faster engine (FASTER_WHISPER_URL)' })
  faster_whisper: string;
  @ApiProperty({ enum: ['healthy', 'unhealthy', 'not_configured'], description: 'higher-quality engine (WHISPER_URL)' })
  whisper: string;
  @ApiProperty({ format: 'date-time' }) timestamp: string;
}

export class EngineInfoDto {
  @ApiProperty({ enum: ENGINES }) name: EngineName;
  @ApiProperty() queue_name: string;
  @ApiProperty() redis_db: number;
  @ApiProperty() model: string;
  @ApiProperty() configured: boolean;
  @ApiProperty() default: boolean;
  @ApiProperty({ enum: ['openai', 'asr'], description: '`openai`: /v1/audio/transcriptions; `asr`: whisper-asr-webservice' }) protocol: string;
  @ApiProperty({ type: [String], example: ['word_timestamps', 'initial_prompt'], description: 'options it honours (others are refused with 422)' }) capabilities: string[];
  @ApiProperty({ description: 'synchronous calls it is sent at once (by all API replicas together when REDIS_URL is set, else by each process)' }) sync_concurrency: number;
  @ApiProperty({ description: 'jobs each worker process runs at once from its queue' }) worker_concurrency: number;
}

export class ServiceInfoDto {
  @ApiProperty({ example: 'transcribe-api' }) service: string;
  @ApiProperty({ example: '1.0.0' }) version: string;
  @ApiProperty() description: string;
  @ApiProperty({ enum: ['all', 'api', 'worker'] }) role: string;
  @ApiProperty({ enum: ['redis', 'in-memory'] }) queue_backend: string;
  @ApiProperty({ type: [EngineInfoDto] }) engines: EngineInfoDto[];
  @ApiProperty({ type: [String], example: ['transcription', 'faster-whisper-transcription'] }) queues: string[];
  @ApiProperty({ description: 'largest accepted upload, bytes' }) max_upload_bytes: number;
  @ApiProperty({ description: 'how long job records are kept after they end, seconds' }) result_ttl_seconds: number;
  @ApiProperty({ description: 'how long a job record is kept after its result was first read, seconds (if sooner)' }) read_result_ttl_seconds: number;
  @ApiProperty({ type: Object, example: { 'POST /transcribe': 'synchronous transcription' } }) endpoints: Record<string, string>;
  @ApiProperty({ example: '/docs' }) docs: string;
}

export class ErrorDto {
  @ApiProperty({ description: 'what went wrong and what to do next', example: 'Job 3f… not found: it never existed or its record expired.' })
  detail: string;
}
