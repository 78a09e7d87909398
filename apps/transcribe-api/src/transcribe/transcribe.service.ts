import { Injectable, Logger } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { randomUUID } from 'node:crypto';
import { EngineError } from '../engines/engine-client';
import { EnginesService } from '../engines/engines.service';
import { DEFAULT_ENGINE, DEFAULT_TASK, ENGINES, QUEUES, estimateWaitSeconds, toJobRecord, type EngineName, type JobInput, type JobRecord, type QueueStats, type TranscriptionResult } from '../jobs/job-record';
import { TranscriptionQueues } from '../queue/transcription-queue';
import type { StoredAudioFile } from '../uploads/audio-disk-storage';
import { removeUpload } from '../uploads/remove-upload';
import type { AsyncSubmitResponseDto, QueueStatsResponseDto } from './dto/responses.dto';
import type { TranscribeFormDto } from './dto/transcribe-form.dto';
import { EngineNotConfiguredError, TranscriptionRunner } from './transcription-runner';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const notConfigured = (err: EngineNotConfiguredError): ApiError =>
  new ApiError(503, 'ENGINE_NOT_CONFIGURED', `Engine ${err.engine} is not configured on this server.`, {
    suggestion: `Choose the other engine, or ask the operator to set ${EnginesService.variableOf(err.engine)}.`,
  });

@Injectable()
export class TranscribeService {
  private readonly logger = new Logger(TranscribeService.name);

  constructor(
    private readonly queues: TranscriptionQueues,
    private readonly runner: TranscriptionRunner,
  ) {}

  /**
   * `POST /transcribe`: straight to the engine; the upload is removed whatever happens. `signal`
   * aborts when the client goes away, so that the engine stops working for nobody.
   */
  async transcribeNow(file: StoredAudioFile, form: TranscribeFormDto, signal?: AbortSignal): Promise<TranscriptionResult> {
    const engine = form.engine ?? DEFAULT_ENGINE;
    try {
      return await this.runner.run(
        engine,
        { path: file.path, filename: file.originalname, size: file.size, mediaType: file.media.mime },
        { language: form.language ?? null, task: form.task ?? DEFAULT_TASK, signal },
      );
    } catch (err) {
      if (signal?.aborted) throw new ApiError(499, 'CLIENT_CLOSED_REQUEST', 'The client closed the connection before the transcription ended.');
      if (err instanceof EngineNotConfiguredError) throw notConfigured(err);
      if (err instanceof EngineError) {
        const timedOut = /did not answer within/.test(err.message);
        throw new ApiError(timedOut ? 504 : 502, timedOut ? 'ENGINE_TIMEOUT' : 'ENGINE_ERROR', `Transcription failed: ${err.message}.`, {
          suggestion: err.transient
            ? 'The engine is down or overloaded: retry later, or use POST /transcribe/async, which queues the file.'
            : err.status === 404 || err.status === 405
              ? 'The engine does not serve this request (task=translate needs its /v1/audio/translations): use task=transcribe, or the other engine.'
              : 'Check that the file plays and is not corrupt, or retry with the other engine.',
        });
      }
      throw err;
    } finally {
      await removeUpload(file.path).catch((err) => this.logger.warn(`could not remove ${file.path}: ${String(err)}`));
    }
  }

  /** `POST /transcribe/async`: the upload waits on disk until a worker takes the job. */
  async submit(file: StoredAudioFile, form: TranscribeFormDto, requestId?: string): Promise<AsyncSubmitResponseDto> {
    const engine = form.engine ?? DEFAULT_ENGINE;
    const queue = this.queues.get(engine);
    const input: JobInput = {
      job_id: randomUUID(),
      engine,
      language: form.language ?? null,
      task: form.task ?? DEFAULT_TASK,
      filename: file.originalname,
      file_size: file.size,
      media_type: file.media.mime,
      file_path: file.path,
      created_at: new Date().toISOString(),
      request_id: requestId,
    };
    let snapshot;
    try {
      if (!this.runner.isConfigured(engine)) throw new EngineNotConfiguredError(engine);
      snapshot = await queue.add(input);
    } catch (err) {
      await removeUpload(file.path).catch(() => undefined);
      if (err instanceof EngineNotConfiguredError) throw notConfigured(err);
      throw new ApiError(503, 'QUEUE_UNAVAILABLE', `Could not queue the job: ${err instanceof Error ? err.message : String(err)}.`, {
        suggestion: 'The queue store (Redis) is unreachable: retry in a moment.',
      });
    }
    // The job is queued: from here on a failure only makes the estimate rougher.
    // queue_position counts the waiting jobs ahead of this one (0 = next), as the origin's RQ did.
    let position = snapshot.status === 'queued' ? (snapshot.position ?? 0) : 0;
    let estimatedWait: number;
    try {
      const [stats, average] = await Promise.all([queue.stats(), queue.averageJobSeconds()]);
      if (snapshot.status === 'queued' && snapshot.position === null) position = Math.max(0, stats.queued - 1);
      // A job a worker already took waits for nothing.
      estimatedWait = snapshot.status === 'queued' ? estimateWaitSeconds(position, stats.started, stats.workers, average, QUEUES[engine]) : 0;
    } catch (err) {
      this.logger.warn(`job ${input.job_id} queued, but its wait could not be estimated: ${String(err)}`);
      estimatedWait = estimateWaitSeconds(position, 0, 1, null, QUEUES[engine]);
    }
    return {
      job_id: input.job_id,
      status: 'queued',
      message: `Transcription job queued: ${input.filename} (queue ${queue.spec.queueName}, ${position} job(s) ahead); poll /transcribe/status/${input.job_id} until status is finished or failed.`,
      queue_position: position,
      estimated_wait: estimatedWait,
      engine,
      queue_name: queue.spec.queueName,
      status_url: `/transcribe/status/${input.job_id}`,
    };
  }

  async status(jobId: string): Promise<JobRecord> {
    if (UUID.test(jobId)) {
      for (const queue of this.queues.all()) {
        const snapshot = await this.unavailableAs503(() => queue.get(jobId));
        if (snapshot) return toJobRecord(snapshot);
      }
    }
    throw new ApiError(404, 'JOB_NOT_FOUND', `Job ${jobId} not found: it never existed, or it ended more than TRANSCRIBE_RESULT_TTL_SECONDS ago and its record expired.`, {
      suggestion: 'Use the job_id returned by POST /transcribe/async, and fetch results within the retention time.',
    });
  }

  async stats(engine: EngineName = DEFAULT_ENGINE): Promise<QueueStatsResponseDto> {
    const all: QueueStats[] = await this.unavailableAs503(() => Promise.all(ENGINES.map((e) => this.queues.get(e).stats())));
    const top = all.find((s) => s.engine === engine)!;
    return { ...top, queues: all };
  }

  private async unavailableAs503<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw new ApiError(503, 'QUEUE_UNAVAILABLE', `The queue store is unreachable: ${err instanceof Error ? err.message : String(err)}.`, {
        suggestion: 'Retry in a moment; GET /health shows whether Redis is connected.',
      });
    }
  }
}
