import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { Outbox, TranscribeJobFinished } from '@platform/messaging';
import { MetricsService } from '@platform/platform';
import { Counter, Histogram } from 'prom-client';
import { TranscribeConfig } from '../config';
import { engineSettings } from '../engines/engines.service';
import { CANCELLED, CANCELLED_REASON, QUEUES, type JobInput, type TranscriptionResult } from '../transcription/job-record';
import { TranscriptionQueues, type JobContext } from '../queue/transcription-queue';
import { TranscriptionRunner } from '../transcribe/transcription-runner';
import { removeUpload } from '../uploads/remove-upload';

/**
 * Consumes both queues in this process (roles `all` and `worker`): sends the upload to the job's
 * engine, removes the upload when the job ends, and publishes `transcribe.job_finished`.
 */
@Injectable()
export class TranscriptionWorker implements OnApplicationBootstrap {
  private readonly logger = new Logger(TranscriptionWorker.name);
  private readonly jobsTotal: Counter<'engine' | 'status'>;
  private readonly jobSeconds: Histogram<'engine'>;

  constructor(
    private readonly config: TranscribeConfig,
    private readonly queues: TranscriptionQueues,
    private readonly runner: TranscriptionRunner,
    private readonly outbox: Outbox,
    metrics: MetricsService,
  ) {
    this.jobsTotal = new Counter({
      name: 'transcribe_jobs_total',
      help: 'Transcription jobs this process ended, by engine and status (finished, failed)',
      labelNames: ['engine', 'status'],
      registers: [metrics.registry],
    });
    this.jobSeconds = new Histogram({
      name: 'transcribe_job_engine_seconds',
      help: 'Seconds a finished job spent in its engine',
      labelNames: ['engine'],
      buckets: [0.1, 0.5, 1, 5, 15, 30, 60, 180, 600, 1800],
      registers: [metrics.registry],
    });
  }

  onApplicationBootstrap(): void {
    for (const queue of this.queues.all()) {
      queue.startWorker((input, ctx) => this.process(input, ctx), {
        concurrency: engineSettings(this.config, queue.engine).workerConcurrency,
        // A job failed without running (its workers kept dying) ends like any failed job.
        onAbandoned: (input, reason) => this.failed(input, reason),
      });
    }
    this.logger.log(
      `workers consuming ${this.queues
        .all()
        .map((q) => `${q.spec.queueName} (concurrency ${engineSettings(this.config, q.engine).workerConcurrency})`)
        .join(' and ')} on ${this.queues.kind}`,
    );
  }

  async process(input: JobInput, ctx: JobContext): Promise<TranscriptionResult> {
    this.logger.log(`job ${input.job_id} started on ${input.engine} (attempt ${ctx.attempt}, request ${input.request_id ?? '-'})`);
    let result: TranscriptionResult;
    try {
      result = await this.runner.run(
        input.engine,
        { path: input.file_path, filename: input.filename, size: input.file_size, mediaType: input.media_type },
        { language: input.language, task: input.task, options: input.options, signal: ctx.signal },
      );
    } catch (err) {
      if (ctx.signal.aborted && ctx.signal.reason === CANCELLED) {
        // Cancelled by a client: the engine request is aborted; the job ends here, without its upload.
        await this.failed(input, CANCELLED_REASON);
        throw err;
      }
      // Stopped with this process: the job goes back to the queue and keeps its upload.
      if (ctx.signal.aborted) throw err;
      await this.failed(input, err instanceof Error ? err.message : String(err));
      throw err;
    }
    this.logger.log(`job ${input.job_id} finished in ${result.processing_time} s`);
    this.jobsTotal.inc({ engine: input.engine, status: 'finished' });
    this.jobSeconds.observe({ engine: input.engine }, result.processing_time);
    // Both before the job is marked finished, side by side.
    await Promise.all([
      removeUpload(input.file_path).catch((err) => this.logger.warn(`could not remove ${input.file_path}: ${String(err)}`)),
      this.publish(input, result, null),
    ]);
    return result;
  }

  /** The end of a failed job: upload removed, counted, and published. */
  private async failed(input: JobInput, message: string): Promise<void> {
    await removeUpload(input.file_path).catch((err) => this.logger.warn(`could not remove ${input.file_path}: ${String(err)}`));
    this.logger.warn(`job ${input.job_id} failed: ${message}`);
    this.jobsTotal.inc({ engine: input.engine, status: 'failed' });
    await this.publish(input, null, message);
  }

  /**
   * Stores the event in the outbox (the relay publishes it once the broker confirms). Event id = job
   * id: a job that a second worker ends again after a crash is recorded once.
   */
  private async publish(input: JobInput, result: TranscriptionResult | null, error: string | null): Promise<void> {
    try {
      await this.outbox.enqueue(
        TranscribeJobFinished,
        {
          jobId: input.job_id,
          status: result ? 'finished' : 'failed',
          queue: QUEUES[input.engine].queueName,
          engine: input.engine,
          textLength: result?.text.length ?? 0,
          language: result?.language ?? input.language,
          durationSeconds: result?.duration ?? null,
          error,
        },
        { id: input.job_id, correlationId: input.request_id },
      );
    } catch (err) {
      if ((err as { code?: string }).code === '23505') return; // already recorded for this job
      // The transcription itself succeeded or failed on its own; a database outage must not change that.
      this.logger.error(`could not record transcribe.job_finished for job ${input.job_id}: ${String(err)}`);
    }
  }
}
