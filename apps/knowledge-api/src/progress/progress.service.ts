import { Injectable, Logger } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { KnowledgeApiConfig } from '../config';
import { RealtimeEvents } from '../realtime/realtime-events';
import { CrawlGateway, RootGateway } from './progress.gateways';
import { PhaseTracker, phasesFor, type PhaseStatus } from './progress-phases';
import { eventFor, toPayload, withMessage, type ProgressPayload } from './progress-payload';
import { ProgressRepository } from './progress.repository';
import type { CrawlRequest, ProgressRow, ProgressState } from './progress.types';

/** Counter-only progress steps are written to the database at most this often. */
const PERSIST_EVERY_MS = 250;
/**
 * Counter-only progress steps (a page fetched) are emitted at most this often: one between is held
 * back and the latest is emitted when the interval ends, so a client sees every count within this
 * long while a fast crawl sends about ten events a second instead of one a page. A phase change, a
 * log line and the end are emitted at once, in order.
 */
export const EMIT_EVERY_MS = 100;
const MAX_LOGS = 200;

/** Raised inside a crawl when its progress says it was cancelled (here or on another replica). */
export class CrawlCancelled extends Error {
  constructor() {
    super('Crawl cancelled');
  }
}

/**
 * Progress of one running crawl: phase and percentage (monotonic), counters and the log, written
 * to the database (readable by every replica over REST) and emitted to `/crawl` and `/` rooms.
 */
export class ProgressReporter {
  private readonly tracker: PhaseTracker;
  private readonly logs: string[];
  private state: ProgressState;
  private status: string;
  private cancelled = false;
  private lost = false;
  private finished = false;
  readonly abort = new AbortController();

  constructor(
    private readonly row: ProgressRow,
    private readonly service: ProgressService,
    private readonly rows: ProgressRepository,
  ) {
    this.tracker = new PhaseTracker(row.percentage, phasesFor(row.kind));
    this.logs = [...(row.logs ?? [])];
    this.state = { ...row.state };
    this.status = row.status;
  }

  get id(): string {
    return this.row.progress_id;
  }

  private get noun(): string {
    return this.row.kind === 'project' ? 'Project creation' : 'Crawl';
  }

  /** The claim that started this run (1 = first; more = taken over from a replica that stopped). */
  get attempt(): number {
    return this.row.attempts;
  }

  get isCancelled(): boolean {
    return this.cancelled;
  }

  /** The replica lost this crawl (another took it over after the lease ran out). */
  get isLost(): boolean {
    return this.lost;
  }

  /** Throws CrawlCancelled when a cancel was seen. */
  check(): void {
    if (this.cancelled) throw new CrawlCancelled();
  }

  cancelSeen(): void {
    if (!this.cancelled) {
      this.cancelled = true;
      this.abort.abort(new CrawlCancelled());
    }
  }

  async phase(phase: PhaseStatus, fraction: number, patch: ProgressState = {}, log?: string): Promise<void> {
    this.tracker.advance(phase, fraction);
    this.status = phase;
    await this.write(patch, log);
    this.check();
  }

  /** Renews the lease and picks up a cancel requested elsewhere, without a new event. */
  heartbeat(): Promise<void> {
    const next = this.chain.then(async () => {
      if (this.finished) return;
      const res = await this.rows.update(this.id, this.row.attempts, {
        status: this.status,
        percentage: this.tracker.percentage,
        state: this.state,
        logs: this.logs,
        leaseSeconds: this.service.leaseSeconds,
      });
      this.handle(res);
    });
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** A log line in the current phase. */
  async log(line: string): Promise<void> {
    await this.write({}, line);
  }

  async complete(patch: ProgressState, log: string): Promise<void> {
    this.tracker.complete();
    this.status = 'completed';
    await this.write(patch, log, true);
  }

  async fail(status: 'error' | 'cancelled', error: string, errorStatus?: number): Promise<void> {
    this.status = status;
    await this.write({ error, ...(errorStatus ? { errorStatus } : {}) }, status === 'cancelled' ? `${this.noun} cancelled` : `${this.noun} failed: ${error}`, true);
  }

  private chain: Promise<void> = Promise.resolve();
  private persistedStatus = '';
  private persistedAt = 0;

  /** Writes are serialised, so events leave in the order they were made (percentages never go back on the wire). */
  private write(patch: ProgressState, log: string | undefined, finished = false): Promise<void> {
    const next = this.chain.then(() => this.writeNow(patch, log, finished));
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async writeNow(patch: ProgressState, log: string | undefined, finished: boolean): Promise<void> {
    if (log) {
      this.logs.push(log);
      if (this.logs.length > MAX_LOGS) this.logs.splice(0, this.logs.length - MAX_LOGS);
      patch = { ...patch, log };
    }
    this.state = { ...this.state, ...patch };
    if (finished) this.finished = true;
    // A counter-only step (a page fetched) shortly after the last write is not written on its own:
    // the next write (a log line, a phase, the heartbeat within a second) stores it.
    const now = Date.now();
    const persist = finished || !!log || this.status !== this.persistedStatus || now - this.persistedAt >= PERSIST_EVERY_MS;
    let percentage = this.tracker.percentage;
    if (persist) {
      const res = await this.rows.update(this.id, this.row.attempts, {
        status: this.status,
        percentage,
        state: this.state,
        logs: this.logs,
        finished,
        leaseSeconds: this.service.leaseSeconds,
      });
      this.handle(res);
      if (!res) return;
      percentage = res.percentage;
      this.persistedStatus = this.status;
      this.persistedAt = now;
    }
    if (!finished && !log && this.status === this.emittedStatus && now - this.emittedAt < EMIT_EVERY_MS) {
      // a counter-only step right after the last event: held back, the latest is sent when the interval ends
      this.heldBack = true;
      if (!this.trailing) {
        this.trailing = setTimeout(() => this.emitHeldBack(), EMIT_EVERY_MS - (now - this.emittedAt));
        this.trailing.unref();
      }
      return;
    }
    this.emitNow(percentage, now);
    if (log) this.service.logLine(this.status === 'error' ? 'error' : 'info', `[${this.id.slice(0, 8)}] ${log}`);
  }

  private emittedAt = 0;
  private emittedStatus = '';
  private emittedPercentage = 0;
  private heldBack = false;
  private trailing: NodeJS.Timeout | null = null;

  private emitNow(percentage: number, now: number): void {
    if (this.trailing) clearTimeout(this.trailing);
    this.trailing = null;
    this.heldBack = false;
    this.emittedAt = now;
    this.emittedStatus = this.status;
    this.emittedPercentage = Math.max(this.emittedPercentage, percentage);
    this.service.emit(
      toPayload({
        progress_id: this.id,
        status: this.status,
        percentage: this.emittedPercentage,
        start_time: this.row.start_time,
        state: this.state,
        logs: this.logs,
      }),
    );
  }

  /** The held-back counter step, after the writes queued before it (events keep their order). */
  private emitHeldBack(): void {
    this.trailing = null;
    this.chain = this.chain
      .then(() => {
        if (this.heldBack && !this.finished && !this.lost) this.emitNow(this.tracker.percentage, Date.now());
      })
      .catch(() => undefined);
  }

  private handle(res: { cancelRequested: boolean } | null): void {
    if (!res) {
      this.lost = true;
      this.cancelSeen();
    } else if (res.cancelRequested) this.cancelSeen();
  }
}

@Injectable()
export class ProgressService {
  private readonly logger = new Logger(ProgressService.name);

  /** How long a claimed crawl stays this replica's without a renewal (CRAWL_LEASE_SECONDS). */
  readonly leaseSeconds: number;

  constructor(
    config: KnowledgeApiConfig,
    private readonly repo: ProgressRepository,
    private readonly crawl: CrawlGateway,
    private readonly root: RootGateway,
    private readonly realtime: RealtimeEvents,
  ) {
    this.leaseSeconds = config.CRAWL_LEASE_SECONDS;
  }

  async create(progressId: string, request: CrawlRequest, sourceId: string | null): Promise<ProgressPayload> {
    return toPayload(await this.repo.create(progressId, request, sourceId));
  }

  /** Queues a background job (a backfill: one at a time, the running one answered when it exists). */
  async createJob(
    progressId: string,
    kind: 'backfill' | 'upload' | 'project',
    request: Record<string, unknown>,
    log: string,
    sourceId: string | null = null,
  ): Promise<{ payload: ProgressPayload; created: boolean }> {
    const row = await this.repo.createJob(progressId, kind, request, log, sourceId);
    if (row) return { payload: toPayload(row), created: true };
    const active = await this.repo.activeJob(kind);
    if (!active) throw new ApiError(409, 'CONFLICT', `a ${kind} job just ended; try again`);
    return { payload: toPayload(active), created: false };
  }

  async get(progressId: string): Promise<ProgressPayload> {
    const row = await this.repo.find(progressId);
    if (!row) throw new ApiError(404, 'NOT_FOUND', `Progress ${progressId} not found: use the progress_id returned by POST /api/knowledge-items/crawl`);
    return toPayload(row);
  }

  /** The queued or running crawl of this source, if any (one crawl per source at a time). */
  activeFor(sourceId: string): Promise<ProgressRow | null> {
    return this.repo.activeFor(sourceId);
  }

  /** Claims up to `limit` crawls for this replica: queued ones, and running ones whose lease ran out. */
  claim(limit: number): Promise<ProgressRow[]> {
    return this.repo.claim(limit, this.leaseSeconds);
  }

  /** Deletes the progress of crawls and jobs that ended more than `hours` ago (PROGRESS_RETENTION_HOURS). */
  pruneFinished(hours: number): Promise<number> {
    return this.repo.pruneFinished(hours);
  }

  /** Hands a crawl this replica runs back to the queue (it shuts down): another replica takes it at once. */
  release(progressId: string, attempt: number): Promise<void> {
    return this.repo.release(progressId, attempt);
  }

  reporter(row: ProgressRow): ProgressReporter {
    return new ProgressReporter(row, this, this.repo);
  }

  emit(payload: ProgressPayload): void {
    const event = eventFor(payload.status);
    this.crawl.server?.to(payload.progressId).emit(event, payload);
    this.root.server?.to(payload.progressId).emit(event, withMessage(payload));
  }

  /** An event to the clients that joined a project's room (`join_project` on the root namespace: room `project:{id}`). */
  emitToProject(projectId: string, event: string, data: unknown): void {
    this.root.server?.to(`project:${projectId}`).emit(event, data);
  }

  logLine(level: 'info' | 'error', message: string): void {
    this.realtime.log(level, message);
  }

  /**
   * Cancels a crawl: a queued one ends at once; a running one stops at its next step on the
   * replica that runs it (the cancel flag is in the database). 404 for an unknown id, 409 for a
   * crawl that already ended.
   */
  async cancel(progressId: string): Promise<ProgressPayload> {
    const existing = await this.repo.find(progressId);
    if (!existing) throw new ApiError(404, 'NOT_FOUND', `Progress ${progressId} not found`);
    if (existing.run_state === 'finished') {
      throw new ApiError(409, 'CONFLICT', `Crawl ${progressId} already ended with status ${existing.status}; nothing to cancel`);
    }
    const res = await this.repo.requestCancel(progressId);
    if (!res) throw new ApiError(404, 'NOT_FOUND', `Progress ${progressId} not found`);
    const payload = toPayload(res.row);
    if (res.finishedNow) this.emit(payload);
    this.cancelListeners.forEach((fn) => fn(progressId));
    return payload;
  }

  private readonly cancelListeners: Array<(id: string) => void> = [];
  private readonly queuedListeners: Array<() => void> = [];

  /** Lets the job runner of this replica look at once when a job is queued here. */
  onQueued(fn: () => void): void {
    this.queuedListeners.push(fn);
  }

  /** Says a job was queued (after its transaction committed): this replica's runner looks at once. */
  announceQueued(): void {
    this.queuedListeners.forEach((fn) => fn());
  }

  /** Lets the crawl runner of this replica stop at once on a cancel received here. */
  onCancel(fn: (id: string) => void): void {
    this.cancelListeners.push(fn);
  }
}
