import { Injectable, Logger } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { TranscribeConfig } from '../config';
import { parseOutputFormat, renderTranscript, toJsonShape, type RenderedTranscript } from '../formats/transcript-output';
import { TranscriptionQueues, type TranscriptionQueue } from '../queue/transcription-queue';
import { removeUpload } from '../uploads/remove-upload';
import { Clock } from '../transcription/clock';
import { ENGINES, toJobRecord, type JobRecord, type JobSnapshot, type RecordContext } from '../transcription/job-record';
import type { ListJobsQueryDto } from './dto/jobs-query.dto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const ENDED = new Set(['finished', 'failed', 'cancelled']);

export type JobSummary = Omit<JobRecord, 'result'>;

export interface JobList {
  jobs: JobSummary[];
  total: number;
  page: number;
  limit: number;
}

export interface CancelAnswer {
  job_id: string;
  status: 'cancelled' | 'deleted';
  message: string;
}

const notFound = (jobId: string): ApiError =>
  new ApiError(404, 'JOB_NOT_FOUND', `Job ${jobId} not found: it never existed, or its record expired (TRANSCRIBE_RESULT_TTL_SECONDS after it ended, or TRANSCRIBE_READ_RESULT_TTL_SECONDS after its result was first read).`, {
    suggestion: 'Use the job_id returned by POST /transcribe/async, and save the result when you first read it.',
  });

/** Reading, listing and cancelling jobs (records live with the jobs in Redis, or in memory). */
@Injectable()
export class JobsService {
  private readonly logger = new Logger(JobsService.name);

  constructor(
    private readonly queues: TranscriptionQueues,
    private readonly clock: Clock,
    private readonly config: TranscribeConfig,
  ) {}

  /**
   * `GET /transcribe/status/{job_id}`: the record, or with `output` the finished result alone in that
   * format. Reading an ended job starts its shorter retention (TRANSCRIBE_READ_RESULT_TTL_SECONDS).
   */
  async status(jobId: string, output?: string): Promise<{ record: JobRecord } | { rendered: RenderedTranscript; filename: string }> {
    const found = await this.find(jobId);
    if (!found) throw notFound(jobId);
    const { queue, snapshot } = found;
    const firstRead = ENDED.has(snapshot.status) && !snapshot.readAt;
    // This read starts the shorter retention: the record's expires_at says so already.
    const record = toJobRecord(firstRead ? { ...snapshot, readAt: new Date(this.clock.now()) } : snapshot, await this.context(queue, snapshot));
    const format = output ? parseOutputFormat(output) : null;
    if (format && (record.status !== 'finished' || !record.result)) {
      throw new ApiError(409, 'JOB_NOT_FINISHED', `Job ${jobId} is ${record.status}: only a finished job has a result to render as ${output}.`, {
        suggestion: record.status === 'queued' || record.status === 'started' ? 'Poll without `output` until status is finished, then ask again.' : 'Read the record without `output` to see why.',
      });
    }
    if (firstRead) {
      await this.unavailableAs503(() => queue.markRead(jobId)).catch((err) => this.logger.warn(`could not note the read of job ${jobId}: ${String(err)}`));
    }
    if (format) return { rendered: renderTranscript(record.result!, format), filename: `${record.filename}.${format === 'verbose_json' ? 'json' : format === 'text' ? 'txt' : format}` };
    return { record: { ...record, result: record.result ? toJsonShape(record.result) : null } };
  }

  /** `GET /transcribe/jobs`: newest first, without results. */
  async list(query: ListJobsQueryDto): Promise<JobList> {
    const page = query.page ?? 1;
    const limit = query.limit ?? 20;
    const queues = query.engine ? [this.queues.get(query.engine)] : ENGINES.map((e) => this.queues.get(e));
    const found = await this.unavailableAs503(() => Promise.all(queues.map(async (q) => ({ q, snapshots: await q.list(query.status ? [query.status] : []) }))));
    const all = found.flatMap(({ q, snapshots }) => snapshots.map((s) => ({ q, s }))).sort((a, b) => b.s.input.created_at.localeCompare(a.s.input.created_at) || a.s.input.job_id.localeCompare(b.s.input.job_id));
    const slice = all.slice((page - 1) * limit, page * limit);
    const factors = new Map<TranscriptionQueue, number | null>();
    const jobs: JobSummary[] = [];
    for (const { q, s } of slice) {
      if (s.status === 'started' && !factors.has(q)) factors.set(q, await q.realTimeFactor().catch(() => null));
      const { result: _result, ...summary } = toJobRecord(s, this.baseContext(factors.get(q) ?? null));
      jobs.push(summary);
    }
    return { jobs, total: all.length, page, limit };
  }

  /** `DELETE /transcribe/jobs/{id}`: cancels a queued or running job (upload removed), deletes an ended one's record. */
  async cancel(jobId: string): Promise<CancelAnswer> {
    if (UUID.test(jobId)) {
      for (const queue of this.queues.all()) {
        const outcome = await this.unavailableAs503(() => queue.cancel(jobId));
        if (!outcome) continue;
        await removeUpload(outcome.input.file_path).catch(() => undefined);
        return outcome.outcome === 'cancelled'
          ? {
              job_id: jobId,
              status: 'cancelled',
              message: `Job ${jobId} was ${outcome.was === 'queued' ? 'taken out of the queue' : 'stopped: its engine request was aborted'}, and its upload removed. Its record says cancelled until it expires.`,
            }
          : { job_id: jobId, status: 'deleted', message: `The record of job ${jobId} (${outcome.was}) and its result were deleted.` };
      }
    }
    throw notFound(jobId);
  }

  private async find(jobId: string): Promise<{ queue: TranscriptionQueue; snapshot: JobSnapshot } | null> {
    if (!UUID.test(jobId)) return null;
    for (const queue of this.queues.all()) {
      const snapshot = await this.unavailableAs503(() => queue.get(jobId));
      if (snapshot) return { queue, snapshot };
    }
    return null;
  }

  private baseContext(realTimeFactor: number | null): RecordContext {
    return { now: this.clock.now(), realTimeFactor, ttlSeconds: this.config.TRANSCRIBE_RESULT_TTL_SECONDS, readTtlSeconds: this.config.TRANSCRIBE_READ_RESULT_TTL_SECONDS };
  }

  private async context(queue: TranscriptionQueue, snapshot: JobSnapshot): Promise<RecordContext> {
    const factor = snapshot.status === 'started' ? await queue.realTimeFactor().catch(() => null) : null;
    return this.baseContext(factor);
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
