import { redisOptions } from '@platform/rate-limit';
import { Queue, WaitingError, Worker, type Job } from 'bullmq';
import Redis from 'ioredis';
import type { JobInput, JobSnapshot, JobStatus, QueueSpec, QueueStats, TranscriptionResult } from '../jobs/job-record';
import { SHUTDOWN, TranscriptionQueue, type JobProcessor, type WorkerOptions } from './transcription-queue';

export interface BullmqQueueOptions {
  redisUrl: string;
  prefix: string;
  ttlSeconds: number;
  lockDurationMs: number;
  stalledIntervalMs: number;
  maxStalledCount: number;
  /** how long an API call waits for Redis before failing (ioredis would queue it until Redis is back) */
  redisTimeoutMs?: number;
}

type TranscriptionJob = Job<JobInput, TranscriptionResult>;

/** How many finished jobs the running average of job time looks at. */
const AVERAGE_OVER = 20;

/** BullMQ's reason for a job whose workers died too often, and what the job record says instead. */
const STALLED_REASON = 'job stalled more than allowable limit';
const ABANDONED_MESSAGE =
  'the worker running this job stopped (crashed or was killed) more often than TRANSCRIBE_MAX_STALLED_COUNT allows, so the job was abandoned';

const readableReason = (reason: string | undefined): string => (reason === STALLED_REASON ? ABANDONED_MESSAGE : reason || 'the job failed');

/** Rejects when `promise` takes longer than `ms`: calls made while Redis is down fail instead of waiting. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer ${what} within ${ms} ms`)), ms);
  });
  promise.catch(() => undefined); // a late rejection after the timeout is not unhandled
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function statusOf(state: string): JobStatus | null {
  switch (state) {
    case 'waiting':
    case 'prioritized':
    case 'delayed':
    case 'waiting-children':
      return 'queued';
    case 'active':
      return 'started';
    case 'completed':
      return 'finished';
    case 'failed':
      return 'failed';
    default:
      return null; // 'unknown': removed or never existed
  }
}

/**
 * A queue on Redis through BullMQ: job data and return value hold the job record, a worker's lock
 * (renewed while it runs) lets another worker take over a job whose worker died, and finished
 * records are removed `ttlSeconds` after they end.
 */
export class BullmqTranscriptionQueue extends TranscriptionQueue {
  private readonly queue: Queue<JobInput, TranscriptionResult>;
  /** The API side's connection, owned here so that close() ends it even when Redis never answered. */
  private readonly redis: Redis;
  private worker?: Worker<JobInput, TranscriptionResult>;
  private readonly running = new Set<AbortController>();
  private shuttingDown = false;
  private readonly cleaner: NodeJS.Timeout;

  constructor(
    readonly spec: QueueSpec,
    private readonly opts: BullmqQueueOptions,
  ) {
    super();
    this.redis = new Redis(redisOptions(opts.redisUrl, { db: spec.redisDb, maxRetriesPerRequest: 2 }));
    this.redis.on('error', () => undefined); // surfaced through check() and failing calls
    this.queue = new Queue(spec.queueName, {
      connection: this.redis,
      prefix: opts.prefix,
    });
    this.queue.on('error', () => undefined); // surfaced through check() and failing calls
    // removeOnComplete/removeOnFail only act when another job ends; this sweep enforces the TTL.
    this.cleaner = setInterval(() => void this.clean(), Math.min(60, opts.ttlSeconds) * 1000);
    this.cleaner.unref();
  }

  private get timeoutMs(): number {
    return this.opts.redisTimeoutMs ?? 5_000;
  }

  async add(input: JobInput): Promise<JobSnapshot> {
    return withTimeout(this.addNow(input), this.timeoutMs, 'when adding a job');
  }

  private async addNow(input: JobInput): Promise<JobSnapshot> {
    const job = await this.queue.add('transcribe', input, {
      jobId: input.job_id,
      attempts: 1,
      removeOnComplete: { age: this.opts.ttlSeconds },
      removeOnFail: { age: this.opts.ttlSeconds },
    });
    return (await this.toSnapshot(job, await job.getState())) ?? this.queuedSnapshot(input);
  }

  async get(jobId: string): Promise<JobSnapshot | null> {
    return withTimeout(this.getNow(jobId), this.timeoutMs, 'when reading a job');
  }

  private async getNow(jobId: string): Promise<JobSnapshot | null> {
    // State first, then the job: a job that ends in between is read with its result.
    const state = await this.queue.getJobState(jobId);
    if (state === 'unknown') return null;
    const job = await this.queue.getJob(jobId);
    return job ? this.toSnapshot(job, state) : null;
  }

  async stats(): Promise<QueueStats> {
    return withTimeout(this.statsNow(), this.timeoutMs, 'when counting jobs');
  }

  private async statsNow(): Promise<QueueStats> {
    const [counts, workers] = await Promise.all([
      this.queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active', 'completed', 'failed'),
      this.queue.getWorkersCount(),
    ]);
    return {
      queue_name: this.spec.queueName,
      engine: this.spec.engine,
      queued: (counts.waiting ?? 0) + (counts.prioritized ?? 0) + (counts.delayed ?? 0),
      started: counts.active ?? 0,
      finished: counts.completed ?? 0,
      failed: counts.failed ?? 0,
      workers,
    };
  }

  async averageJobSeconds(): Promise<number | null> {
    const jobs = await withTimeout(this.queue.getJobs(['completed'], 0, AVERAGE_OVER - 1, false), this.timeoutMs, 'when reading finished jobs');
    const times = jobs
      .filter((j) => j?.processedOn && j.finishedOn)
      .map((j) => (j.finishedOn! - j.processedOn!) / 1000);
    return times.length ? times.reduce((a, b) => a + b, 0) / times.length : null;
  }

  startWorker(processor: JobProcessor, opts: WorkerOptions): void {
    if (this.worker) return;
    /** Jobs the processor ran in this process: their failures were handled there. */
    const ran = new WeakSet<TranscriptionJob>();
    this.worker = new Worker<JobInput, TranscriptionResult>(
      this.spec.queueName,
      async (job, token) => {
        ran.add(job);
        const controller = new AbortController();
        this.running.add(controller);
        try {
          return await processor(job.data, { signal: controller.signal, attempt: job.attemptsStarted });
        } catch (err) {
          if (this.shuttingDown && controller.signal.aborted) {
            // Stopped with this process: hand the job back to the wait list at once (another worker,
            // or this one after a restart, takes it); WaitingError tells BullMQ it did not fail.
            await job.moveToWait(token);
            throw new WaitingError();
          }
          throw err;
        } finally {
          this.running.delete(controller);
        }
      },
      {
        connection: redisOptions(this.opts.redisUrl, { db: this.spec.redisDb, maxRetriesPerRequest: null }),
        prefix: this.opts.prefix,
        concurrency: opts.concurrency,
        lockDuration: this.opts.lockDurationMs,
        stalledInterval: this.opts.stalledIntervalMs,
        maxStalledCount: this.opts.maxStalledCount,
        autorun: true,
      },
    );
    this.worker.on('error', () => undefined); // connection errors: ioredis reconnects by itself
    // A job failed without reaching the processor (BullMQ fails a job that stalled too often when a
    // worker next fetches it): the processor's clean-up never ran, so the hook does it.
    this.worker.on('failed', (job, err) => {
      if (!job || ran.has(job) || !opts.onAbandoned) return;
      void opts.onAbandoned(job.data, readableReason(err?.message ?? job.failedReason)).catch(() => undefined);
    });
  }

  async check(): Promise<void> {
    const ping = this.queue.client.then((client) => (client as unknown as { ping(): Promise<string> }).ping());
    const pong = await withTimeout(ping, Math.min(this.timeoutMs, 2_500), 'PING');
    if (pong !== 'PONG') throw new Error(`Redis answered ${pong} to PING`);
  }

  async close(): Promise<void> {
    this.shuttingDown = true;
    clearInterval(this.cleaner);
    for (const controller of this.running) controller.abort(SHUTDOWN);
    try {
      await this.worker?.close(); // waits for the aborted jobs to be handed back
    } finally {
      await withTimeout(this.queue.close(), this.timeoutMs, 'when closing').catch(() => undefined);
      this.redis.disconnect();
    }
  }

  private async clean(): Promise<void> {
    try {
      const graceMs = this.opts.ttlSeconds * 1000;
      await this.queue.clean(graceMs, 1000, 'completed');
      await this.queue.clean(graceMs, 1000, 'failed');
    } catch {
      // Redis unreachable: the next sweep tries again
    }
  }

  private queuedSnapshot(input: JobInput): JobSnapshot {
    return { input, status: 'queued', startedAt: null, endedAt: null, result: null, error: null, position: null, attempts: 0 };
  }

  private async toSnapshot(job: TranscriptionJob, state: string): Promise<JobSnapshot | null> {
    const status = statusOf(state);
    if (!status) return null;
    return {
      input: job.data,
      status,
      startedAt: status !== 'queued' && job.processedOn ? new Date(job.processedOn) : null,
      endedAt: (status === 'finished' || status === 'failed') && job.finishedOn ? new Date(job.finishedOn) : null,
      result: status === 'finished' ? (job.returnvalue ?? null) : null,
      error: status === 'failed' ? readableReason(job.failedReason) : null,
      position: status === 'queued' ? await this.positionOf(job.id!) : null,
      attempts: job.attemptsStarted ?? 0,
    };
  }

  /** Jobs ahead of it in the wait list, 0 = next (BullMQ pushes on the left and takes from the right). */
  private async positionOf(jobId: string): Promise<number | null> {
    const client = await this.queue.client;
    const key = this.queue.toKey('wait');
    const [index, length] = await Promise.all([client.lpos(key, jobId), client.llen(key)]);
    return index === null || index === undefined ? null : Math.max(0, length - Number(index) - 1);
  }
}
