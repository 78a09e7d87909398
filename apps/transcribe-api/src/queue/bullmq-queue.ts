import { redisOptions } from '@platform/rate-limit';
import { Queue, WaitingError, Worker, type Job } from 'bullmq';
import Redis from 'ioredis';
import { CANCELLED, CANCELLED_REASON, realTimeFactorOf, type JobInput, type JobSnapshot, type JobStatus, type QueueSpec, type QueueStats, type TranscriptionResult } from '../transcription/job-record';
import { SHUTDOWN, TranscriptionQueue, type CancelOutcome, type JobProcessor, type QueueTimes, type WorkerOptions } from './transcription-queue';

export interface BullmqQueueOptions extends QueueTimes {
  redisUrl: string;
  prefix: string;
  lockDurationMs: number;
  stalledIntervalMs: number;
  maxStalledCount: number;
  /** how long an API call waits for Redis before failing (ioredis would queue it until Redis is back) */
  redisTimeoutMs?: number;
}

type TranscriptionJob = Job<JobInput, TranscriptionResult>;

/** How many finished jobs the running average of job time looks at. */
const AVERAGE_OVER = 20;

/** How long a count of the queue's workers (Redis `CLIENT LIST`, which walks every connection) is reused. */
const WORKERS_COUNT_MS = 1_000;

/** What the workers note of each finished job, newest first, for the averages (never the result itself). */
interface Timing {
  /** seconds the worker spent on the job */
  seconds: number;
  processing_time: number;
  duration: number | null;
}

/** BullMQ's reason for a job whose workers died too often, and what the job record says instead. */
const STALLED_REASON = 'job stalled more than allowable limit';
const ABANDONED_MESSAGE =
  'the worker running this job stopped (crashed or was killed) more often than TRANSCRIBE_MAX_STALLED_COUNT allows, so the job was abandoned';

const readableReason = (reason: string | undefined): string => (reason === STALLED_REASON ? ABANDONED_MESSAGE : reason || 'the job failed');

/** BullMQ states of each status (`cancelled` jobs are failed ones with CANCELLED_REASON, or tombstones of queued ones). */
const STATES: Record<JobStatus, Array<'waiting' | 'prioritized' | 'delayed' | 'active' | 'completed' | 'failed'>> = {
  queued: ['waiting', 'prioritized', 'delayed'],
  started: ['active'],
  finished: ['completed'],
  failed: ['failed'],
  cancelled: ['failed'],
};

/** A queued job removed by a cancel: what its record still shows until it expires. */
interface Tombstone {
  input: JobInput;
  cancelled_at: number;
}

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
  private readonly byJob = new Map<string, AbortController>();
  /** The worker's subscription to cancel messages (DELETE from any API process). */
  private subscriber?: Redis;
  private shuttingDown = false;
  private readonly cleaner: NodeJS.Timeout;
  private workers?: { at: number; count: Promise<number> };
  /** Timings this process noted (noteTiming trims the list every AVERAGE_OVER). */
  private timingsNoted = 0;

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
    this.cleaner = setInterval(() => void this.sweep().catch(() => undefined), Math.min(60, opts.ttlSeconds, opts.readTtlSeconds) * 1000);
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
      // BullMQ's own removal by age, on real time; sweep() also applies the clock and the read TTL.
      removeOnComplete: { age: this.opts.ttlSeconds },
      removeOnFail: { age: this.opts.ttlSeconds },
    });
    // Still in the wait list (the usual case): its position is the answer, in one round trip.
    const position = await this.positionOf(job.id!);
    if (position !== null) return { ...this.queuedSnapshot(input), position };
    // A worker took it already (or it ended): its state says which.
    return (await this.toSnapshot(job, await job.getState())) ?? this.queuedSnapshot(input);
  }

  async get(jobId: string): Promise<JobSnapshot | null> {
    return withTimeout(this.getNow(jobId), this.timeoutMs, 'when reading a job');
  }

  private async getNow(jobId: string): Promise<JobSnapshot | null> {
    // State first, then the job: a job that ends in between is read with its result.
    const state = await this.queue.getJobState(jobId);
    if (state === 'unknown') return this.tombstone(jobId);
    const job = await this.queue.getJob(jobId);
    if (!job) return this.tombstone(jobId);
    const snapshot = await this.toSnapshot(job, state);
    if (!snapshot) return null;
    const client = this.redis;
    const [readScore, cancelling] = await Promise.all([client.zscore(this.key('read'), jobId), snapshot.status === 'started' ? client.exists(this.key(`cancel:${jobId}`)) : 0]);
    if (readScore !== null) snapshot.readAt = new Date(Number(readScore) - this.opts.readTtlSeconds * 1000);
    // Cancelled while running: the worker is aborting it; the record says so at once.
    if (cancelling) return { ...snapshot, status: 'cancelled', endedAt: new Date(this.opts.now()) };
    return snapshot;
  }

  private key(name: string): string {
    return `${this.queue.toKey('transcribe')}:${name}`;
  }

  private async tombstone(jobId: string): Promise<JobSnapshot | null> {
    const client = this.redis;
    const raw = await client.hget(this.key('cancelled'), jobId);
    return raw ? this.tombstoneSnapshot(JSON.parse(raw) as Tombstone) : null;
  }

  private tombstoneSnapshot(t: Tombstone): JobSnapshot {
    return { input: t.input, status: 'cancelled', startedAt: null, endedAt: new Date(t.cancelled_at), result: null, error: null, position: null, attempts: 0, readAt: null };
  }

  async list(statuses: readonly JobStatus[]): Promise<JobSnapshot[]> {
    return withTimeout(this.listNow(statuses), this.timeoutMs, 'when listing jobs');
  }

  private async listNow(statuses: readonly JobStatus[]): Promise<JobSnapshot[]> {
    const wanted = statuses.length ? statuses : (Object.keys(STATES) as JobStatus[]);
    const out: JobSnapshot[] = [];
    const states = new Set(wanted.flatMap((s) => STATES[s]));
    for (const state of states) {
      const jobs = await this.queue.getJobs([state], 0, -1, false);
      for (const job of jobs) {
        if (!job) continue;
        const snapshot = await this.toSnapshot(job, state, false);
        if (snapshot && wanted.includes(snapshot.status)) out.push(snapshot);
      }
    }
    if (wanted.includes('cancelled')) {
      const client = this.redis;
      const all = await client.hvals(this.key('cancelled'));
      out.push(...all.map((raw) => this.tombstoneSnapshot(JSON.parse(raw) as Tombstone)));
    }
    return out;
  }

  async cancel(jobId: string): Promise<CancelOutcome | null> {
    return withTimeout(this.cancelNow(jobId), this.timeoutMs, 'when cancelling a job');
  }

  private async cancelNow(jobId: string): Promise<CancelOutcome | null> {
    const client = this.redis;
    const job = await this.queue.getJob(jobId);
    if (!job) {
      const raw = await client.hget(this.key('cancelled'), jobId);
      if (!raw) return null;
      await client.hdel(this.key('cancelled'), jobId);
      return { outcome: 'deleted', input: (JSON.parse(raw) as Tombstone).input, was: 'cancelled' };
    }
    const state = await job.getState();
    const was = (await this.toSnapshot(job, state, false))?.status ?? 'queued';
    if (was === 'queued') {
      try {
        await job.remove(); // refused when a worker took it meanwhile: then it is cancelled as a running job
        const tombstone: Tombstone = { input: job.data, cancelled_at: this.opts.now() };
        await client.hset(this.key('cancelled'), jobId, JSON.stringify(tombstone));
        return { outcome: 'cancelled', input: job.data, was };
      } catch {
        // taken by a worker: fall through
      }
    }
    if (was === 'queued' || was === 'started') {
      // Marker first, then the message: the worker either sees the marker when it starts the job, or gets the message.
      await client.set(this.key(`cancel:${jobId}`), '1', 'EX', Math.max(60, Math.ceil(this.opts.lockDurationMs / 1000) * 10));
      await client.publish(this.key('cancel'), jobId);
      return { outcome: 'cancelled', input: job.data, was: 'started' };
    }
    await job.remove();
    await client.zrem(this.key('read'), jobId);
    return { outcome: 'deleted', input: job.data, was };
  }

  async markRead(jobId: string): Promise<void> {
    const client = this.redis;
    // NX: the first read counts. The score is when the record goes.
    await withTimeout(client.zadd(this.key('read'), 'NX', this.opts.now() + this.opts.readTtlSeconds * 1000, jobId), this.timeoutMs, 'when noting a read');
  }

  /**
   * Removes records read more than readTtlSeconds ago, and ended ones older than ttlSeconds by the
   * clock; tombstones of cancelled queued jobs likewise. Replicas sweep at once safely: a read
   * record is removed by the replica whose ZREM took it.
   */
  async sweep(): Promise<number> {
    const client = this.redis;
    const now = this.opts.now();
    let removed = 0;
    for (const jobId of await client.zrangebyscore(this.key('read'), '-inf', now)) {
      if ((await client.zrem(this.key('read'), jobId)) !== 1) continue;
      const job = await this.queue.getJob(jobId);
      if (job && (await job.isActive())) continue;
      await job?.remove().catch(() => undefined);
      removed += job ? 1 : 0;
    }
    // BullMQ's clean takes a grace against its own clock: shift it so the cut-off is now - ttl by ours.
    const graceMs = Math.max(0, this.opts.ttlSeconds * 1000 + (Date.now() - now));
    removed += (await this.queue.clean(graceMs, 1000, 'completed')).length;
    removed += (await this.queue.clean(graceMs, 1000, 'failed')).length;
    for (const [jobId, raw] of Object.entries(await client.hgetall(this.key('cancelled')))) {
      if ((JSON.parse(raw) as Tombstone).cancelled_at + this.opts.ttlSeconds * 1000 <= now && (await client.hdel(this.key('cancelled'), jobId)) === 1) removed += 1;
    }
    return removed;
  }

  async realTimeFactor(): Promise<number | null> {
    return realTimeFactorOf(await this.timings());
  }

  /**
   * The last AVERAGE_OVER finished jobs' timings, which the workers note in a short list: reading
   * the finished jobs themselves would fetch their whole results (megabytes for long recordings).
   */
  private async timings(): Promise<Timing[]> {
    const raw = await withTimeout(this.redis.lrange(this.key('timings'), 0, AVERAGE_OVER - 1), this.timeoutMs, 'when reading job timings');
    return raw.map((r) => JSON.parse(r) as Timing);
  }

  /**
   * Notes a finished job's timing, newest first: one LPUSH a job, sent before the job is marked
   * finished; the list is cut back to AVERAGE_OVER every AVERAGE_OVER jobs (readers take the first
   * AVERAGE_OVER). A failure only leaves the averages rougher.
   */
  private noteTiming(seconds: number, result: TranscriptionResult): void {
    const timing: Timing = { seconds, processing_time: result.processing_time, duration: result.duration ?? null };
    const noted: Array<Promise<unknown>> = [withTimeout(this.redis.lpush(this.key('timings'), JSON.stringify(timing)), this.timeoutMs, 'when noting a job timing')];
    if (++this.timingsNoted % AVERAGE_OVER === 0) noted.push(withTimeout(this.redis.ltrim(this.key('timings'), 0, AVERAGE_OVER - 1), this.timeoutMs, 'when trimming job timings'));
    for (const call of noted) call.catch(() => undefined);
  }

  async stats(): Promise<QueueStats> {
    return withTimeout(this.statsNow(), this.timeoutMs, 'when counting jobs');
  }

  private async statsNow(): Promise<QueueStats> {
    const [counts, workers] = await Promise.all([this.queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active', 'completed', 'failed'), this.workersCount()]);
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

  /** Workers on this queue, counted at most once a WORKERS_COUNT_MS in this process (every submit asks). */
  private workersCount(): Promise<number> {
    const now = Date.now();
    if (!this.workers || now - this.workers.at >= WORKERS_COUNT_MS) {
      const count = this.queue.getWorkersCount();
      const entry = { at: now, count };
      count.catch(() => {
        if (this.workers === entry) this.workers = undefined; // a failed count is not reused
      });
      this.workers = entry;
    }
    return this.workers.count;
  }

  async averageJobSeconds(): Promise<number | null> {
    const times = (await this.timings()).map((t) => t.seconds);
    return times.length ? times.reduce((a, b) => a + b, 0) / times.length : null;
  }

  startWorker(processor: JobProcessor, opts: WorkerOptions): void {
    if (this.worker) return;
    /** Jobs the processor ran in this process: their failures were handled there. */
    const ran = new WeakSet<TranscriptionJob>();
    this.listenForCancels();
    this.worker = new Worker<JobInput, TranscriptionResult>(
      this.spec.queueName,
      async (job, token) => {
        ran.add(job);
        const controller = new AbortController();
        this.running.add(controller);
        this.byJob.set(job.id!, controller);
        try {
          // Registered first, then the marker checked: a cancel is either seen here or heard on the channel.
          if (await this.redis.exists(this.key(`cancel:${job.id}`))) controller.abort(CANCELLED);
          const started = performance.now();
          const result = await processor(job.data, { signal: controller.signal, attempt: job.attemptsStarted });
          this.noteTiming((performance.now() - started) / 1000, result); // sent before the job is marked finished, not waited for
          return result;
        } catch (err) {
          if (controller.signal.aborted && controller.signal.reason === CANCELLED) throw new Error(CANCELLED_REASON);
          if (this.shuttingDown && controller.signal.aborted) {
            // Stopped with this process: hand the job back to the wait list at once (another worker,
            // or this one after a restart, takes it); WaitingError tells BullMQ it did not fail.
            await job.moveToWait(token);
            throw new WaitingError();
          }
          throw err;
        } finally {
          this.running.delete(controller);
          this.byJob.delete(job.id!);
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

  private listenForCancels(): void {
    const subscriber = new Redis(redisOptions(this.opts.redisUrl, { db: this.spec.redisDb, maxRetriesPerRequest: null }));
    subscriber.on('error', () => undefined); // reconnects by itself; the marker covers messages missed meanwhile
    subscriber.on('message', (_channel: string, jobId: string) => this.byJob.get(jobId)?.abort(CANCELLED));
    void subscriber.subscribe(this.key('cancel')).catch(() => undefined);
    this.subscriber = subscriber;
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
      // A worker closed before its connections were up would report their closing as an unhandled error.
      await withTimeout<unknown>(this.worker?.waitUntilReady() ?? Promise.resolve(), this.timeoutMs, 'when starting the worker').catch(() => undefined);
      await this.worker?.close(); // waits for the aborted jobs to be handed back
    } finally {
      await withTimeout(this.queue.close(), this.timeoutMs, 'when closing').catch(() => undefined);
      this.subscriber?.disconnect();
      this.redis.disconnect();
    }
  }

  private queuedSnapshot(input: JobInput): JobSnapshot {
    return { input, status: 'queued', startedAt: null, endedAt: null, result: null, error: null, position: null, attempts: 0 };
  }

  private async toSnapshot(job: TranscriptionJob, state: string, withPosition = true): Promise<JobSnapshot | null> {
    let status = statusOf(state);
    if (!status) return null;
    if (status === 'failed' && job.failedReason === CANCELLED_REASON) status = 'cancelled';
    return {
      input: job.data,
      status,
      startedAt: status !== 'queued' && job.processedOn ? new Date(job.processedOn) : null,
      endedAt: (status === 'finished' || status === 'failed') && job.finishedOn ? new Date(job.finishedOn) : null,
      result: status === 'finished' ? (job.returnvalue ?? null) : null,
      error: status === 'failed' ? readableReason(job.failedReason) : null,
      position: status === 'queued' && withPosition ? await this.positionOf(job.id!) : null,
      attempts: job.attemptsStarted ?? 0,
    };
  }

  /** Jobs ahead of it in the wait list, 0 = next (BullMQ pushes on the left and takes from the right). */
  private async positionOf(jobId: string): Promise<number | null> {
    const key = this.queue.toKey('wait');
    const [lpos, llen] = ((await this.redis.pipeline().lpos(key, jobId).llen(key).exec()) ?? []) as Array<[Error | null, unknown] | undefined>;
    if (!lpos || !llen || lpos[0] || llen[0]) throw lpos?.[0] ?? llen?.[0] ?? new Error('Redis did not answer LPOS/LLEN');
    const index = lpos[1] as number | null;
    return index === null || index === undefined ? null : Math.max(0, Number(llen[1]) - Number(index) - 1);
  }
}
