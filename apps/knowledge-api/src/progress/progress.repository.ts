import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { CrawlRequest, ProgressRow, ProgressState } from './progress.types';

/**
 * Crawl progress rows: the state every replica reads (REST, a socket subscription) and the crawl
 * queue (`run_state` queued → running → finished, with a lease renewed while it runs, so a crawl
 * whose replica died is taken over by another).
 */
@Injectable()
export class ProgressRepository {
  constructor(private readonly db: Database) {}

  private get table(): string {
    return this.db.table('progress');
  }

  async create(progressId: string, request: CrawlRequest, sourceId: string | null): Promise<ProgressRow> {
    const row = await this.db.one<ProgressRow>(
      `INSERT INTO ${this.table} (progress_id, kind, status, percentage, request, source_id, logs, state)
       VALUES ($1, 'crawl', 'queued', 0, $2, $3, $4, $5) RETURNING *`,
      [progressId, JSON.stringify(request), sourceId, JSON.stringify([`Queued crawl of ${request.url}`]), JSON.stringify({ currentUrl: request.url, totalPages: 0, processedPages: 0, log: `Queued crawl of ${request.url}` })],
    );
    return row!;
  }

  /**
   * Queues a background job that is not a crawl (`backfill`, `upload`) with its request; null for
   * a backfill when one is already queued or running (the unique index `progress_one_active_job_idx`).
   */
  createJob(progressId: string, kind: 'backfill' | 'upload' | 'project', request: Record<string, unknown>, log: string, sourceId: string | null = null): Promise<ProgressRow | null> {
    return this.db.one<ProgressRow>(
      `INSERT INTO ${this.table} (progress_id, kind, status, percentage, request, logs, state, source_id)
       VALUES ($1, $2, 'queued', 0, $3, $4, $5, $6)
       ON CONFLICT (kind) WHERE kind = 'backfill' AND run_state <> 'finished' DO NOTHING RETURNING *`,
      [progressId, kind, JSON.stringify(request), JSON.stringify([log]), JSON.stringify({ totalPages: 0, processedPages: 0, log }), sourceId],
    );
  }

  /** The queued or running job of this kind, if any. */
  activeJob(kind: string): Promise<ProgressRow | null> {
    return this.db.one<ProgressRow>(`SELECT * FROM ${this.table} WHERE kind = $1 AND run_state <> 'finished' LIMIT 1`, [kind]);
  }

  find(progressId: string): Promise<ProgressRow | null> {
    return this.db.one<ProgressRow>(`SELECT * FROM ${this.table} WHERE progress_id = $1`, [progressId]);
  }

  /** Whether a crawl of this source is queued or running (one crawl per source at a time). */
  async activeFor(sourceId: string): Promise<ProgressRow | null> {
    return this.db.one<ProgressRow>(
      `SELECT * FROM ${this.table} WHERE source_id = $1 AND run_state <> 'finished' ORDER BY start_time DESC LIMIT 1`,
      [sourceId],
    );
  }

  /** Queued crawls, and running ones whose lease ran out (their replica died), for this replica. */
  claim(limit: number, leaseSeconds: number): Promise<ProgressRow[]> {
    return this.db.claimDue<ProgressRow>({
      table: this.table,
      key: 'progress_id',
      where: `run_state IN ('queued', 'running')`,
      orderBy: 'start_time ASC',
      limit,
      lease: { column: 'lease_until', seconds: leaseSeconds },
      set: `run_state = 'running', attempts = attempts + 1`,
    });
  }

  /**
   * Writes the progress of a running crawl (percentage never lower than stored) and renews its
   * lease; returns whether a cancel was requested, or null when the row is no longer this run's
   * (`attempt` is the claim that started the run: a replica that took the crawl over claimed again).
   */
  async update(
    progressId: string,
    attempt: number,
    patch: { status: string; percentage: number; state: ProgressState; logs: string[]; finished?: boolean; leaseSeconds: number },
  ): Promise<{ cancelRequested: boolean; percentage: number } | null> {
    const row = await this.db.one<{ cancel_requested: boolean; percentage: number }>(
      `UPDATE ${this.table} SET status = $2, percentage = GREATEST(percentage, $3), state = $4, logs = $5,
              run_state = CASE WHEN $6 THEN 'finished' ELSE run_state END,
              lease_until = CASE WHEN $6 THEN NULL ELSE now() + make_interval(secs => $7::double precision) END,
              updated_at = now()
        WHERE progress_id = $1 AND run_state = 'running' AND attempts = $8
        RETURNING cancel_requested, percentage`,
      [progressId, patch.status, patch.percentage, JSON.stringify(patch.state), JSON.stringify(patch.logs), !!patch.finished, patch.leaseSeconds, attempt],
    );
    return row ? { cancelRequested: row.cancel_requested, percentage: row.percentage } : null;
  }

  /**
   * Asks for a cancel. A queued crawl is finished here at once (returned with `finishedNow`);
   * a running one stops at its next step on whichever replica runs it.
   */
  async requestCancel(progressId: string): Promise<{ row: ProgressRow; finishedNow: boolean } | null> {
    const queued = await this.db.one<ProgressRow>(
      `UPDATE ${this.table} SET cancel_requested = true, run_state = 'finished', status = 'cancelled', lease_until = NULL,
              state = state || '{"log": "Crawl cancelled"}'::jsonb, logs = logs || '["Crawl cancelled"]'::jsonb, updated_at = now()
        WHERE progress_id = $1 AND run_state = 'queued' RETURNING *`,
      [progressId],
    );
    if (queued) return { row: queued, finishedNow: true };
    const row = await this.db.one<ProgressRow>(
      `UPDATE ${this.table} SET cancel_requested = true, updated_at = now() WHERE progress_id = $1 RETURNING *`,
      [progressId],
    );
    return row ? { row, finishedNow: false } : null;
  }

  /** Deletes the progress of jobs that ended more than `hours` ago; returns how many. */
  pruneFinished(hours: number): Promise<number> {
    return this.db.affected(
      `DELETE FROM ${this.table} WHERE run_state = 'finished' AND updated_at < now() - make_interval(hours => $1::int)`,
      [hours],
    );
  }

  /** Hands a crawl back to the queue (this replica shuts down): another replica takes it at once. */
  async release(progressId: string, attempt: number): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.table} SET run_state = 'queued', lease_until = NULL WHERE progress_id = $1 AND run_state = 'running' AND attempts = $2`,
      [progressId, attempt],
    );
  }
}
