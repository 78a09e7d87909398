import { ApiProperty } from '@nestjs/swagger';
import { ENGINES, type EngineName } from '../../transcription/job-record';

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
