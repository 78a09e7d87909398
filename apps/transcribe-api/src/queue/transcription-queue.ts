import type { EngineName, JobInput, JobSnapshot, QueueSpec, QueueStats, TranscriptionResult } from '../jobs/job-record';

/** Why a job's signal was aborted when the process shuts down: the job goes back to the queue. */
export const SHUTDOWN = 'shutdown';

export interface JobContext {
  /** Aborted (reason `SHUTDOWN`) when this process stops while the job runs. */
  signal: AbortSignal;
  /** How many times a worker has started this job, this run included. */
  attempt: number;
}

/** Runs one job; resolves with its result, throws to fail it. */
export type JobProcessor = (input: JobInput, ctx: JobContext) => Promise<TranscriptionResult>;

/**
 * Called for a job that the queue failed without running it, which only happens on Redis: its
 * workers died mid-job more often than TRANSCRIBE_MAX_STALLED_COUNT allows. The processor's own
 * clean-up (upload, event) never ran for it, so this hook does it.
 */
export type AbandonedJobHandler = (input: JobInput, reason: string) => Promise<void>;

export interface WorkerOptions {
  concurrency: number;
  onAbandoned?: AbandonedJobHandler;
}

/**
 * The port over one transcription queue. Two adapters: BullMQ on Redis (several processes) and
 * in-process (the embedded default, one process). Both keep a job's record until
 * `TRANSCRIBE_RESULT_TTL_SECONDS` after it ended.
 */
export abstract class TranscriptionQueue {
  abstract readonly spec: QueueSpec;

  get engine(): EngineName {
    return this.spec.engine;
  }

  /** Enqueues; returns the job as it stands right after (status queued, with its position). */
  abstract add(input: JobInput): Promise<JobSnapshot>;

  abstract get(jobId: string): Promise<JobSnapshot | null>;

  abstract stats(): Promise<QueueStats>;

  /** Mean seconds of recently finished jobs, or null when none finished yet. */
  abstract averageJobSeconds(): Promise<number | null>;

  /** Starts consuming jobs in this process. */
  abstract startWorker(processor: JobProcessor, opts: WorkerOptions): void;

  /** Throws when the queue's store is unreachable. */
  abstract check(): Promise<void>;

  /** Stops the worker (running jobs are handed back to the queue) and releases connections. */
  abstract close(): Promise<void>;
}

/** Both queues of the service, by engine. */
export abstract class TranscriptionQueues {
  abstract readonly kind: 'redis' | 'in-memory';
  abstract get(engine: EngineName): TranscriptionQueue;
  abstract all(): TranscriptionQueue[];
}
