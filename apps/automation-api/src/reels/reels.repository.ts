import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';

export const REEL_STATUSES = ['scheduled', 'uploading', 'processing', 'ready', 'publishing', 'published', 'failed', 'cancelled'] as const;
export type ReelStatus = (typeof REEL_STATUSES)[number];
/** Statuses the publisher still works on. */
export const OPEN_REEL_STATUSES: ReelStatus[] = ['scheduled', 'uploading', 'processing', 'ready', 'publishing'];

import type { ReelSource } from './reel';

export type { ReelSource } from './reel';

export interface ReelRow {
  id: number;
  account_id: number;
  status: ReelStatus;
  publish_at: Date;
  caption: string;
  source: ReelSource;
  trial: boolean;
  share_to_feed: boolean | null;
  automation_id: number | null;
  container_id: string | null;
  container_status: string | null;
  media_id: string | null;
  permalink: string | null;
  published_at: Date | null;
  error: string | null;
  attempts: number;
  polls: number;
  created_at: Date;
}

export interface NewReel {
  account_id: number;
  publish_at: Date;
  caption: string;
  source: ReelSource;
  trial: boolean;
  share_to_feed: boolean | null;
  automation_id: number | null;
}

/** Scheduled reels: the API's reads and writes and the publisher's claims and step updates. */
@Injectable()
export class ReelsRepository {
  constructor(private readonly db: Database) {}

  private get table(): string {
    return this.db.table('reels');
  }

  async insert(r: NewReel): Promise<ReelRow> {
    const row = await this.db.one<ReelRow>(
      `INSERT INTO ${this.table} (account_id, publish_at, caption, source, trial, share_to_feed, automation_id, next_attempt_at)
       VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, now()) RETURNING *`,
      [r.account_id, r.publish_at, r.caption, JSON.stringify(r.source), r.trial, r.share_to_feed, r.automation_id],
    );
    return row!;
  }

  list(accountId: number, opts: { status?: string; limit: number }): Promise<ReelRow[]> {
    const params: unknown[] = [accountId, opts.limit];
    let filter = '';
    if (opts.status) {
      params.push(opts.status);
      filter = 'AND status = $3';
    }
    return this.db.rows<ReelRow>(`SELECT * FROM ${this.table} WHERE account_id = $1 ${filter} ORDER BY id DESC LIMIT $2`, params);
  }

  find(accountId: number, id: number): Promise<ReelRow | null> {
    return this.db.one<ReelRow>(`SELECT * FROM ${this.table} WHERE account_id = $1 AND id = $2`, [accountId, id]);
  }

  findById(id: number): Promise<ReelRow | null> {
    return this.db.one<ReelRow>(`SELECT * FROM ${this.table} WHERE id = $1`, [id]);
  }

  /** An open reel already bound to this automation (one reel per automation). */
  async boundReel(automationId: number): Promise<number | null> {
    const row = await this.db.one<{ id: number }>(
      `SELECT id FROM ${this.table} WHERE automation_id = $1 AND status NOT IN ('failed','cancelled') LIMIT 1`,
      [automationId],
    );
    return row?.id ?? null;
  }

  /** Cancels a reel not yet being published; the row after the change, or null when it was not cancellable. */
  cancel(accountId: number, id: number): Promise<ReelRow | null> {
    return this.db.one<ReelRow>(
      `UPDATE ${this.table} SET status = 'cancelled', lease_until = NULL, updated_at = now()
        WHERE account_id = $1 AND id = $2 AND status IN ('scheduled','uploading','processing','ready') RETURNING *`,
      [accountId, id],
    );
  }

  /**
   * Open reels due at `now`, leased to this replica: a container is prepared from `prepareMinutes`
   * before publish_at (and polled), a `ready` reel is published at publish_at.
   */
  claimDue(now: Date, prepareMinutes: number, limit: number, leaseSeconds: number): Promise<ReelRow[]> {
    return this.db.claimDue<ReelRow>({
      table: this.table,
      where: `next_attempt_at <= $1 AND (
                (status IN ('scheduled','uploading','processing','publishing') AND publish_at <= $1::timestamptz + make_interval(mins => $2::int))
                OR (status = 'ready' AND publish_at <= $1))`,
      params: [now, prepareMinutes],
      orderBy: 'next_attempt_at ASC',
      limit,
      lease: { column: 'lease_until', seconds: leaseSeconds },
    });
  }

  /**
   * Moves a reel from `from` to a new status with fields; false when another writer (cancel) changed
   * it meanwhile. `nextAttemptAt` schedules the next step and frees the lease.
   */
  async step(id: number, from: ReelStatus, to: ReelStatus, fields: Partial<Pick<ReelRow, 'container_id' | 'container_status' | 'media_id' | 'permalink' | 'published_at' | 'error' | 'attempts' | 'polls'>>, nextAttemptAt?: Date): Promise<boolean> {
    const sets = ['status = $3', 'updated_at = now()'];
    const params: unknown[] = [id, from, to];
    for (const [k, v] of Object.entries(fields)) {
      params.push(v);
      sets.push(`${k} = $${params.length}`);
    }
    if (nextAttemptAt) {
      params.push(nextAttemptAt);
      sets.push(`next_attempt_at = $${params.length}`, 'lease_until = NULL');
    }
    return (await this.db.affected(`UPDATE ${this.table} SET ${sets.join(', ')} WHERE id = $1 AND status = $2`, params)) === 1;
  }

  /** Automation ids bound to an open reel of the account (they wait for that reel, never for a guess). */
  async boundAutomationIds(accountId: number): Promise<Set<number>> {
    const rows = await this.db.rows<{ automation_id: number }>(
      `SELECT automation_id FROM ${this.table} WHERE account_id = $1 AND automation_id IS NOT NULL AND status NOT IN ('failed','cancelled')`,
      [accountId],
    );
    return new Set(rows.map((r) => r.automation_id));
  }
}
