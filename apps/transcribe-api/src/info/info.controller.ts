import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { TranscribeConfig } from '../config';
import { EnginesService } from '../engines/engines.service';
import { DEFAULT_ENGINE, ENGINES, QUEUES } from '../transcription/job-record';
import { TranscriptionQueues } from '../queue/transcription-queue';
import { ServiceInfoDto } from '../transcribe/dto/responses.dto';

export const SERVICE_VERSION = '1.0.0';

@ApiTags('service')
@Controller()
export class InfoController {
  constructor(
    private readonly config: TranscribeConfig,
    private readonly engines: EnginesService,
    private readonly queues: TranscriptionQueues,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Service info: version, engines, queues, limits and endpoints' })
  @ApiOkResponse({ type: ServiceInfoDto })
  info(): ServiceInfoDto {
    return {
      service: 'transcribe-api',
      version: SERVICE_VERSION,
      description: 'Transcribes audio files synchronously or through two background queues (OpenAI-compatible or whisper-asr-webservice engines).',
      role: this.config.TRANSCRIBE_ROLE,
      queue_backend: this.queues.kind,
      engines: ENGINES.map((name) => ({
        name,
        queue_name: QUEUES[name].queueName,
        redis_db: QUEUES[name].redisDb,
        model: this.engines.model(name),
        configured: !!this.engines.client(name),
        default: name === DEFAULT_ENGINE,
        protocol: this.engines.settings(name).protocol,
        capabilities: this.engines.capabilityNames(name),
        sync_concurrency: this.engines.settings(name).syncConcurrency,
        worker_concurrency: this.engines.settings(name).workerConcurrency,
      })),
      queues: ENGINES.map((name) => QUEUES[name].queueName),
      max_upload_bytes: this.config.TRANSCRIBE_MAX_UPLOAD_BYTES,
      result_ttl_seconds: this.config.TRANSCRIBE_RESULT_TTL_SECONDS,
      read_result_ttl_seconds: this.config.TRANSCRIBE_READ_RESULT_TTL_SECONDS,
      endpoints: {
        'GET /': 'this service info',
        'GET /health': 'health of Redis and the engines',
        'POST /transcribe': 'synchronous transcription (multipart file, language, engine, task, response_format json|verbose_json|text|srt|vtt|tsv)',
        'POST /transcribe/async': 'queue a transcription (multipart file, language, engine, task) → job_id',
        'GET /transcribe/status/{job_id}': 'job status and result (?output=srt… for the result alone)',
        'GET /transcribe/jobs': 'jobs, newest first (status, engine, page, limit)',
        'DELETE /transcribe/jobs/{job_id}': 'cancel a queued or running job, or delete an ended one',
        'POST /asr': 'whisper-asr-webservice compatible transcription (multipart audio_file)',
        'POST /detect-language': 'whisper-asr-webservice compatible language detection',
        'GET /queue/stats': 'queue counters',
        'GET /docs': 'interactive docs (also /api/docs; OpenAPI JSON at /api/docs-json)',
      },
      docs: '/docs',
    };
  }
}
