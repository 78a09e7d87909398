import { Module, type DynamicModule } from '@nestjs/common';
import { MulterModule } from '@nestjs/platform-express';
import { DatabaseModule } from '@platform/database';
import { MessagingModule, messagingEntities } from '@platform/messaging';
import { RedisModule } from '@platform/rate-limit';
import type { TranscribeConfig } from './config';
import { EnginesService } from './engines/engines.service';
import { HealthController } from './health/health.controller';
import { InfoController } from './info/info.controller';
import { JobsController } from './jobs/jobs.controller';
import { JobsService } from './jobs/jobs.service';
import { CreateOutboxTables1796100000000 } from './migrations/1796100000000-CreateOutboxTables';
import { QueueModule } from './queue/queue.module';
import { AsrController } from './transcribe/asr.controller';
import { TranscribeController } from './transcribe/transcribe.controller';
import { TranscribeService } from './transcribe/transcribe.service';
import { TranscriptionRunner } from './transcribe/transcription-runner';
import { AudioDiskStorage } from './uploads/audio-disk-storage';
import { uploadDirOf } from './uploads/upload-dir';
import { UploadErrorsInterceptor } from './uploads/upload-errors.interceptor';
import { UploadJanitor } from './uploads/upload-janitor';
import { TranscriptionWorker } from './worker/transcription-worker';

/**
 * Root module, `TranscribeApiModule.forRoot(config)`. Role `all` (default) serves the API and runs
 * the workers; `api` only enqueues; `worker` runs the workers and serves nothing but /health,
 * /healthz, /readyz and /metrics.
 * Job records live with the jobs in Redis (or in memory), see README; the database holds only the
 * outbox, through which `transcribe.job_finished` is published.
 */
@Module({})
export class TranscribeApiModule {
  static forRoot(config: TranscribeConfig): DynamicModule {
    const serveApi = config.TRANSCRIBE_ROLE !== 'worker';
    const runWorkers = config.TRANSCRIBE_ROLE !== 'api';
    return {
      module: TranscribeApiModule,
      imports: [
        DatabaseModule.forRoot({ entities: messagingEntities, migrations: [CreateOutboxTables1796100000000] }),
        MessagingModule.forRoot({ outbox: true }),
        QueueModule,
        ...(serveApi
          ? [
              // REDIS_CLIENT for the engines' shared bound on synchronous calls (null without REDIS_URL).
              RedisModule,
              MulterModule.register({
                storage: new AudioDiskStorage(uploadDirOf(config)),
                limits: { fileSize: config.TRANSCRIBE_MAX_UPLOAD_BYTES, files: 1, fields: 10, fieldSize: 1024 },
              }),
            ]
          : []),
      ],
      controllers: [HealthController, ...(serveApi ? [InfoController, TranscribeController, AsrController, JobsController] : [])],
      providers: [
        EnginesService,
        TranscriptionRunner,
        ...(serveApi ? [TranscribeService, JobsService, UploadErrorsInterceptor] : []),
        ...(runWorkers ? [TranscriptionWorker] : []),
        ...(serveApi && runWorkers ? [UploadJanitor] : []),
      ],
    };
  }
}
