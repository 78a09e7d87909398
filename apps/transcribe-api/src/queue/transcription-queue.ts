import type { EngineName, JobInput, JobSnapshot, JobStatus, QueueSpec, QueueStats, TranscriptionResult } from '../transcription/job-record';

/** Why a job's signal was aborted when the process shuts down: the job goes back to the queue. */
export const SHUTDOWN = 'shutdown';

/** Settings both adapters share. */
export interface QueueTimes {
  /** seconds an ended job's record stays when its result is never read */
  ttlSeconds: number;
  /** seconds it stays after its result was first read */
  readTtlSeconds: number;
  /** the clock of expiries and progress (tests move it) */
  now: () => number;
}

/** What DELETE did: a queued or running job was cancelled, an ended one's record deleted. */
export interface CancelOutcome {
  outcome: 'cancelled' | 'deleted';
  input: JobInput;
  /** the status it had */
  was: JobStatus;
}

export interface JobContext {
  /** Aborted with reason `SHUTDOWN` when this process stops while the job runs, `CANCELLED` when a client cancels it. */
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

  /** Jobs whose status is one of `statuses` (all when empty), any order; queued ones without their position. */
  abstract list(statuses: readonly JobStatus[]): Promise<JobSnapshot[]>;

  /**
   * Cancels a queued job (removed from the wait list) or a running one (its worker, in whichever
   * process, aborts the engine request); deletes an ended job's record. Null when unknown.
   */
  abstract cancel(jobId: string): Promise<CancelOutcome | null>;

  /** Notes the first read of an ended job's result: it is removed readTtlSeconds later. */
  abstract markRead(jobId: string): Promise<void>;

  /** Removes the records whose time is up; returns how many. Runs on a timer, and tests call it. */
  abstract sweep(): Promise<number>;

  /** Engine seconds per audio second over recently finished jobs, or null. */
  abstract realTimeFactor(): Promise<number | null>;

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
