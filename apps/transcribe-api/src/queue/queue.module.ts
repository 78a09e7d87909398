import { Inject, Injectable, Module, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { HealthRegistry } from '@platform/platform';
import { TranscribeConfig } from '../config';
import { Clock } from '../transcription/clock';
import { ENGINES, QUEUES, type EngineName } from '../transcription/job-record';
import { BullmqTranscriptionQueue } from './bullmq-queue';
import { InProcessTranscriptionQueue } from './in-process-queue';
import { TranscriptionQueues, type TranscriptionQueue } from './transcription-queue';

/** Builds both queues on Redis when REDIS_URL is set, in this process's memory otherwise. */
@Injectable()
export class QueueRegistry extends TranscriptionQueues implements OnModuleInit, OnModuleDestroy {
  readonly kind: 'redis' | 'in-memory';
  private readonly queues = new Map<EngineName, TranscriptionQueue>();

  constructor(
    @Inject(TranscribeConfig) config: TranscribeConfig,
    private readonly health: HealthRegistry,
    clock: Clock,
  ) {
    super();
    this.kind = config.REDIS_URL ? 'redis' : 'in-memory';
    const times = { ttlSeconds: config.TRANSCRIBE_RESULT_TTL_SECONDS, readTtlSeconds: config.TRANSCRIBE_READ_RESULT_TTL_SECONDS, now: () => clock.now() };
    for (const engine of ENGINES) {
      const spec = QUEUES[engine];
      this.queues.set(
        engine,
        config.REDIS_URL
          ? new BullmqTranscriptionQueue(spec, {
              ...times,
              redisUrl: config.REDIS_URL,
              prefix: config.TRANSCRIBE_QUEUE_PREFIX,
              lockDurationMs: config.TRANSCRIBE_LOCK_DURATION_MS,
              stalledIntervalMs: config.TRANSCRIBE_STALLED_INTERVAL_MS,
              maxStalledCount: config.TRANSCRIBE_MAX_STALLED_COUNT,
              redisTimeoutMs: config.TRANSCRIBE_REDIS_TIMEOUT_MS,
            })
          : new InProcessTranscriptionQueue(spec, times),
      );
    }
  }

  onModuleInit(): void {
    // Readiness (/readyz) depends on the queue store only: an engine outage fails jobs with a
    // clear error and shows in /health, but must not take the API out of its load balancer.
    if (this.kind === 'redis') this.health.register('redis', () => this.check());
  }

  get(engine: EngineName): TranscriptionQueue {
    return this.queues.get(engine)!;
  }

  all(): TranscriptionQueue[] {
    return [...this.queues.values()];
  }

  async check(): Promise<void> {
    await Promise.all(this.all().map((q) => q.check()));
  }

  /** First in the shutdown: running jobs are handed back before the engine clients close. */
  async onModuleDestroy(): Promise<void> {
    await Promise.allSettled(this.all().map((q) => q.close()));
  }
}

@Module({
  providers: [Clock, QueueRegistry, { provide: TranscriptionQueues, useExisting: QueueRegistry }],
  exports: [Clock, QueueRegistry, TranscriptionQueues],
})
export class QueueModule {}
