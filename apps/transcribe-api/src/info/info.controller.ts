import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { TranscribeConfig } from '../config';
import { EnginesService } from '../engines/engines.service';
import { DEFAULT_ENGINE, ENGINES, QUEUES } from '../jobs/job-record';
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
      description: 'Transcribes audio files synchronously or through two background queues (OpenAI-compatible Whisper engines).',
      role: this.config.TRANSCRIBE_ROLE,
      queue_backend: this.queues.kind,
      engines: ENGINES.map((name) => ({
        name,
        queue_name: QUEUES[name].queueName,
        redis_db: QUEUES[name].redisDb,
        model: this.engines.model(name),
        configured: !!this.engines.client(name),
        default: name === DEFAULT_ENGINE,
      })),
      queues: ENGINES.map((name) => QUEUES[name].queueName),
      max_upload_bytes: this.config.TRANSCRIBE_MAX_UPLOAD_BYTES,
      result_ttl_seconds: this.config.TRANSCRIBE_RESULT_TTL_SECONDS,
      endpoints: {
        'GET /': 'this service info',
        'GET /health': 'health of Redis and the engines',
        'POST /transcribe': 'synchronous transcription (multipart file, language, engine, task)',
        'POST /transcribe/async': 'queue a transcription (multipart file, language, engine, task) → job_id',
        'GET /transcribe/status/{job_id}': 'job status and result',
        'GET /queue/stats': 'queue counters',
        'GET /docs': 'interactive docs (also /api/docs; OpenAPI JSON at /api/docs-json)',
      },
      docs: '/docs',
    };
  }
}
