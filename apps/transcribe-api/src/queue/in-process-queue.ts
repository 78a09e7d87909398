import { CANCELLED, expiryOf, realTimeFactorOf, type JobInput, type JobSnapshot, type JobStatus, type QueueSpec, type QueueStats, type TranscriptionResult } from '../transcription/job-record';
import { SHUTDOWN, TranscriptionQueue, type CancelOutcome, type JobProcessor, type QueueTimes, type WorkerOptions } from './transcription-queue';

interface Entry {
  input: JobInput;
  status: JobStatus;
  startedAt: Date | null;
  endedAt: Date | null;
  readAt: Date | null;
  result: TranscriptionResult | null;
  error: string | null;
  attempts: number;
}

/** How many finished jobs the running average of job time looks at (as the BullMQ adapter). */
const AVERAGE_OVER = 20;

/**
 * The embedded default (REDIS_URL unset): the same queue in this process's memory. FIFO, bounded
 * concurrency, records kept `ttlSeconds` after a job ends (`readTtlSeconds` after the first read if
 * sooner). Jobs do not survive a restart.
 */
export class InProcessTranscriptionQueue extends TranscriptionQueue {
  private readonly entries = new Map<string, Entry>();
  private readonly waiting: string[] = [];
  private readonly running = new Map<string, AbortController>();
  private readonly recent: Array<{ seconds: number; result: TranscriptionResult }> = [];
  private processor?: JobProcessor;
  private concurrency = 0;
  private closed = false;
  private readonly settled = new Set<Promise<void>>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    readonly spec: QueueSpec,
    private readonly times: QueueTimes,
  ) {
    super();
    this.sweeper = setInterval(() => void this.sweep(), Math.min(60, times.ttlSeconds, times.readTtlSeconds) * 1000);
    this.sweeper.unref();
  }

  async add(input: JobInput): Promise<JobSnapshot> {
    if (this.closed) throw new Error(`queue ${this.spec.queueName} is closed`);
    if (this.entries.has(input.job_id)) throw new Error(`job ${input.job_id} already exists`);
    this.entries.set(input.job_id, { input, status: 'queued', startedAt: null, endedAt: null, readAt: null, result: null, error: null, attempts: 0 });
    this.waiting.push(input.job_id);
    const snapshot = this.snapshot(input.job_id)!;
    setImmediate(() => this.pump());
    return snapshot;
  }

  async get(jobId: string): Promise<JobSnapshot | null> {
    return this.snapshot(jobId);
  }

  async list(statuses: readonly JobStatus[]): Promise<JobSnapshot[]> {
    return [...this.entries.keys()].map((id) => this.snapshot(id)!).filter((s) => !statuses.length || statuses.includes(s.status));
  }

  async stats(): Promise<QueueStats> {
    const count = (status: JobStatus) => [...this.entries.values()].filter((e) => e.status === status).length;
    return {
      queue_name: this.spec.queueName,
      engine: this.spec.engine,
      queued: this.waiting.length,
      started: this.running.size,
      finished: count('finished'),
      failed: count('failed'),
      workers: this.processor && !this.closed ? 1 : 0,
    };
  }

  async averageJobSeconds(): Promise<number | null> {
    if (!this.recent.length) return null;
    return this.recent.reduce((a, b) => a + b.seconds, 0) / this.recent.length;
  }

  async realTimeFactor(): Promise<number | null> {
    return realTimeFactorOf(this.recent.map((r) => r.result));
  }

  async cancel(jobId: string): Promise<CancelOutcome | null> {
    const entry = this.entries.get(jobId);
    if (!entry) return null;
    const was = entry.status;
    if (was === 'queued' || was === 'started') {
      if (was === 'queued') this.waiting.splice(this.waiting.indexOf(jobId), 1);
      this.running.get(jobId)?.abort(CANCELLED);
      entry.status = 'cancelled';
      entry.endedAt = new Date(this.times.now());
      return { outcome: 'cancelled', input: entry.input, was };
    }
    this.entries.delete(jobId);
    return { outcome: 'deleted', input: entry.input, was };
  }

  async markRead(jobId: string): Promise<void> {
    const entry = this.entries.get(jobId);
    if (entry?.endedAt && !entry.readAt) entry.readAt = new Date(this.times.now());
  }

  async sweep(): Promise<number> {
    const now = this.times.now();
    let removed = 0;
    for (const [id, e] of this.entries) {
      const expiry = expiryOf(e.endedAt, e.readAt, this.times);
      if (expiry && expiry.getTime() <= now && !this.running.has(id)) {
        this.entries.delete(id);
        removed += 1;
      }
    }
    return removed;
  }

  startWorker(processor: JobProcessor, opts: WorkerOptions): void {
    this.processor = processor;
    this.concurrency = opts.concurrency;
    setImmediate(() => this.pump());
  }

  async check(): Promise<void> {
    if (this.closed) throw new Error(`queue ${this.spec.queueName} is closed`);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    for (const controller of this.running.values()) controller.abort(SHUTDOWN);
    await Promise.allSettled([...this.settled]);
  }

  private snapshot(jobId: string): JobSnapshot | null {
    const e = this.entries.get(jobId);
    if (!e) return null;
    const index = e.status === 'queued' ? this.waiting.indexOf(jobId) : -1;
    return {
      input: e.input,
      status: e.status,
      startedAt: e.startedAt,
      endedAt: e.endedAt,
      result: e.result,
      error: e.error,
      position: index >= 0 ? index : null, // jobs ahead of it
      attempts: e.attempts,
      readAt: e.readAt,
    };
  }

  private pump(): void {
    const processor = this.processor;
    if (!processor || this.closed) return;
    while (this.running.size < this.concurrency && this.waiting.length) {
      const jobId = this.waiting.shift()!;
      const entry = this.entries.get(jobId);
      if (!entry) continue;
      const controller = new AbortController();
      this.running.set(jobId, controller);
      entry.status = 'started';
      entry.startedAt = new Date(this.times.now());
      entry.attempts += 1;
      const run = this.run(processor, entry, controller).finally(() => {
        this.running.delete(jobId);
        this.settled.delete(run);
        this.pump();
      });
      this.settled.add(run);
    }
  }

  private async run(processor: JobProcessor, entry: Entry, controller: AbortController): Promise<void> {
    let result: TranscriptionResult | null = null;
    let error: string | null = null;
    try {
      result = await processor(entry.input, { signal: controller.signal, attempt: entry.attempts });
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
    if (controller.signal.aborted && (this.closed || controller.signal.reason === CANCELLED)) return; // stopped with the process, or cancelled: recorded already
    entry.endedAt = new Date(this.times.now());
    if (error === null && result) {
      entry.status = 'finished';
      entry.result = result;
      this.recent.unshift({ seconds: (entry.endedAt.getTime() - entry.startedAt!.getTime()) / 1000, result });
      this.recent.length = Math.min(this.recent.length, AVERAGE_OVER);
    } else {
      entry.status = 'failed';
      entry.error = error ?? 'the job produced no result';
    }
  }
}
