import type { JobInput, JobSnapshot, QueueSpec, QueueStats, TranscriptionResult } from '../jobs/job-record';
import { SHUTDOWN, TranscriptionQueue, type JobProcessor, type WorkerOptions } from './transcription-queue';

interface Entry {
  input: JobInput;
  status: JobSnapshot['status'];
  startedAt: Date | null;
  endedAt: Date | null;
  result: TranscriptionResult | null;
  error: string | null;
  attempts: number;
  expiry?: NodeJS.Timeout;
}

/** How many finished jobs the running average of job time looks at (as the BullMQ adapter). */
const AVERAGE_OVER = 20;

/**
 * The embedded default (REDIS_URL unset): the same queue in this process's memory. FIFO, bounded
 * concurrency, records kept for `ttlSeconds` after a job ends. Jobs do not survive a restart.
 */
export class InProcessTranscriptionQueue extends TranscriptionQueue {
  private readonly entries = new Map<string, Entry>();
  private readonly waiting: string[] = [];
  private readonly running = new Map<string, AbortController>();
  private readonly recentSeconds: number[] = [];
  private processor?: JobProcessor;
  private concurrency = 0;
  private closed = false;
  private readonly settled = new Set<Promise<void>>();
  private counts = { finished: 0, failed: 0 };

  constructor(
    readonly spec: QueueSpec,
    private readonly ttlSeconds: number,
  ) {
    super();
  }

  async add(input: JobInput): Promise<JobSnapshot> {
    if (this.closed) throw new Error(`queue ${this.spec.queueName} is closed`);
    if (this.entries.has(input.job_id)) throw new Error(`job ${input.job_id} already exists`);
    this.entries.set(input.job_id, {
      input,
      status: 'queued',
      startedAt: null,
      endedAt: null,
      result: null,
      error: null,
      attempts: 0,
    });
    this.waiting.push(input.job_id);
    const snapshot = this.snapshot(input.job_id)!;
    setImmediate(() => this.pump());
    return snapshot;
  }

  async get(jobId: string): Promise<JobSnapshot | null> {
    return this.snapshot(jobId);
  }

  async stats(): Promise<QueueStats> {
    return {
      queue_name: this.spec.queueName,
      engine: this.spec.engine,
      queued: this.waiting.length,
      started: this.running.size,
      finished: this.counts.finished,
      failed: this.counts.failed,
      workers: this.processor && !this.closed ? 1 : 0,
    };
  }

  async averageJobSeconds(): Promise<number | null> {
    if (!this.recentSeconds.length) return null;
    return this.recentSeconds.reduce((a, b) => a + b, 0) / this.recentSeconds.length;
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
    for (const controller of this.running.values()) controller.abort(SHUTDOWN);
    await Promise.allSettled([...this.settled]);
    for (const entry of this.entries.values()) clearTimeout(entry.expiry);
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
      entry.startedAt = new Date();
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
    if (controller.signal.aborted && this.closed) return; // stopped with the process: nothing to record
    entry.endedAt = new Date();
    if (error === null && result) {
      entry.status = 'finished';
      entry.result = result;
      this.counts.finished += 1;
      this.recentSeconds.unshift((entry.endedAt.getTime() - entry.startedAt!.getTime()) / 1000);
      this.recentSeconds.length = Math.min(this.recentSeconds.length, AVERAGE_OVER);
    } else {
      entry.status = 'failed';
      entry.error = error ?? 'the job produced no result';
      this.counts.failed += 1;
    }
    entry.expiry = setTimeout(() => this.expire(entry.input.job_id), this.ttlSeconds * 1000);
    entry.expiry.unref();
  }

  private expire(jobId: string): void {
    const entry = this.entries.get(jobId);
    if (!entry) return;
    this.entries.delete(jobId);
    if (entry.status === 'finished') this.counts.finished -= 1;
    if (entry.status === 'failed') this.counts.failed -= 1;
  }
}
