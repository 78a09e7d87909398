import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import { newId } from '../common/ids';
import type { JobRow, JobType, RowError } from './job';

/** Errors kept per job (the result counts all of them). */
export const MAX_STORED_ERRORS = 1000;

@Injectable()
export class JobsRepository {
  constructor(private readonly db: Database) {}

  private get table(): string {
    return this.db.table('jobs');
  }

  async create(projectId: string, type: JobType, payload: Record<string, unknown>, input: string | null, total: number): Promise<JobRow> {
    const row = await this.db.one<JobRow>(
      `INSERT INTO ${this.table} (id, project_id, type, state, payload, input, total) VALUES ($1, $2, $3, 'waiting', $4::jsonb, $5, $6) RETURNING *`,
      [newId('job'), projectId, type, JSON.stringify(payload), input, total],
    );
    return row!;
  }

  async find(projectId: string, id: string, types: JobType[]): Promise<JobRow | null> {
    return this.db.one<JobRow>(`SELECT * FROM ${this.table} WHERE project_id = $1 AND id = $2 AND type = ANY($3::text[])`, [projectId, id, types]);
  }

  /** Claims due jobs (waiting, or active with an expired lease: their worker died) for this worker. */
  claim(limit: number, leaseSeconds: number): Promise<JobRow[]> {
    return this.db.claimDue<JobRow>({
      table: this.table,
      where: `state IN ('waiting', 'active')`,
      orderBy: 'created_at ASC',
      limit,
      lease: { column: 'claimed_until', seconds: leaseSeconds },
      set: `state = 'active', attempts = attempts + 1, started_at = coalesce(started_at, now())`,
    });
  }

  /** Progress after a batch, in the batch's transaction (a resumed job starts after `processed`). */
  async progress(id: string, processed: number, newErrors: RowError[], leaseSeconds: number, result: Record<string, unknown> | null = null): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.table} SET processed = $2, result = coalesce($5::jsonb, result),
              errors = CASE WHEN jsonb_array_length(errors) >= ${MAX_STORED_ERRORS} THEN errors
                            ELSE (errors || $3::jsonb) END,
              claimed_until = now() + make_interval(secs => $4)
        WHERE id = $1`,
      [id, processed, JSON.stringify(newErrors), leaseSeconds, result ? JSON.stringify(result) : null],
    );
  }

  async complete(id: string, result: Record<string, unknown>): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.table} SET state = 'completed', processed = total, result = $2::jsonb, finished_at = now(), claimed_until = NULL, input = NULL WHERE id = $1`,
      [id, JSON.stringify(result)],
    );
  }

  async fail(id: string, reason: string): Promise<void> {
    await this.db.affected(`UPDATE ${this.table} SET state = 'failed', failed_reason = $2, finished_at = now(), claimed_until = NULL WHERE id = $1`, [id, reason]);
  }

  /** After an unexpected error: free the job for another attempt soon. */
  async release(id: string, reason: string, retryInSeconds: number): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.table} SET failed_reason = $2, claimed_until = now() + make_interval(secs => $3) WHERE id = $1`,
      [id, reason, retryInSeconds],
    );
  }
}
