import { Injectable, Logger } from '@nestjs/common';
import { PollingWorker } from '@platform/database';
import { KnowledgeApiConfig } from '../config';
import { ProgressService } from '../progress/progress.service';
import { ProcessUpload } from '../documents/process-upload';
import { CreateProject } from '../projects/create-project';
import { BackfillEmbeddings } from './backfill-embeddings';
import { CrawlService } from './crawl.service';
import { QueueDueRecrawls } from './queue-due-recrawls';

/** Crawls one replica runs at once (each with CRAWL_CONCURRENCY page workers). */
export const CRAWLS_PER_REPLICA = 3;

/**
 * Runs the crawl queue (and the jobs of the same queue: embeddings backfill, uploads, project creations): claims queued crawls (and running ones whose replica stopped renewing the
 * lease) with FOR UPDATE SKIP LOCKED, so each crawl runs on one replica; queues the recrawls whose
 * `update_frequency` came due. A crawl runs in the background of the request that queued it, so
 * it goes on when that client disconnects. On shutdown running crawls are stopped and handed back
 * to the queue for another replica.
 */
@Injectable()
export class CrawlWorker extends PollingWorker {
  protected readonly logger = new Logger(CrawlWorker.name);
  private readonly running = new Map<string, { abort: () => void; done: Promise<void>; attempt: number }>();
  private shuttingDown = false;
  private nextPruneAt = 0;
  private readonly retentionHours: number;

  constructor(
    config: KnowledgeApiConfig,
    private readonly crawls: CrawlService,
    private readonly progress: ProgressService,
    private readonly recrawls: QueueDueRecrawls,
    private readonly backfill: BackfillEmbeddings,
    private readonly uploads: ProcessUpload,
    private readonly projects: CreateProject,
  ) {
    super(config.CRAWL_POLL_MS);
    this.retentionHours = config.PROGRESS_RETENTION_HOURS;
    progress.onCancel((id) => this.running.get(id)?.abort());
    progress.onQueued(() => this.wake());
  }

  protected async tick(): Promise<number> {
    if (this.shuttingDown) return 0;
    if (Date.now() >= this.nextPruneAt) {
      // at most hourly per replica; a plain DELETE, so replicas doing it at once do no harm
      this.nextPruneAt = Date.now() + 3_600_000;
      await this.progress.pruneFinished(this.retentionHours);
    }
    const handled = await this.recrawls.execute(5);
    const free = CRAWLS_PER_REPLICA - this.running.size;
    if (free <= 0) return handled;
    const rows = await this.progress.claim(free);
    for (const row of rows) {
      const reporter = this.progress.reporter(row);
      const job =
        row.kind === 'backfill'
          ? this.backfill.run(row, reporter)
          : row.kind === 'upload'
            ? this.uploads.run(row, reporter)
            : row.kind === 'project'
              ? this.projects.run(row, reporter)
              : this.crawls.run(row, reporter);
      const done = job
        .catch((err: Error) => this.logger.error(`${row.kind} ${row.progress_id}: ${err.message}`))
        .finally(() => {
          this.running.delete(row.progress_id);
          this.wake();
        });
      this.running.set(row.progress_id, { abort: () => reporter.cancelSeen(), done, attempt: row.attempts });
    }
    return handled + rows.length;
  }

  /** Crawls running on this replica. */
  get active(): number {
    return this.running.size;
  }

  /** Resolves when every crawl this replica runs has ended (tests, tools). */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.all([...this.running.values()].map((r) => r.done));
  }

  override async onModuleDestroy(): Promise<void> {
    this.shuttingDown = true;
    await super.onModuleDestroy();
    for (const [id, run] of this.running) {
      try {
        await this.progress.release(id, run.attempt);
      } catch {
        // the lease runs out instead
      }
    }
    // release first: the runs then see their row as no longer theirs and stop without ending it
    for (const r of this.running.values()) r.abort();
    await Promise.all([...this.running.values()].map((r) => r.done));
  }
}
