import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { ReelSource } from '../reels/reel';

export const PLATFORMS = ['instagram', 'youtube'] as const;
export type Platform = (typeof PLATFORMS)[number];
export const PLANNED_POST_STATUSES = ['open', 'published', 'partial', 'failed', 'cancelled'] as const;
export const TARGET_STATUSES = ['scheduled', 'publishing', 'published', 'failed', 'cancelled'] as const;
export type TargetStatus = (typeof TARGET_STATUSES)[number];

export interface PlannedPostRow {
  id: number;
  account_id: number;
  status: (typeof PLANNED_POST_STATUSES)[number];
  publish_at: Date;
  source: ReelSource;
  caption: string;
  title: string | null;
  idempotency_key: string | null;
  notes: string[];
  created_at: Date;
}

export interface TargetRow {
  id: number;
  planned_post_id: number;
  account_id: number;
  platform: Platform;
  status: TargetStatus;
  publish_at: Date;
  reel_id: number | null;
  permalink: string | null;
  external_id: string | null;
  published_at: Date | null;
  error: string | null;
  attempts: number;
  upload_url: string | null;
}

export interface NewPlannedPost {
  account_id: number;
  publish_at: Date;
  source: ReelSource;
  caption: string;
  title: string | null;
  idempotency_key: string | null;
  notes: string[];
  targets: Array<{ platform: Platform; publish_at: Date }>;
}

/** Planned posts with their targets (one aggregate): creation by idempotency key, reads, the worker's claims and results. */
@Injectable()
export class PlannedPostsRepository {
  constructor(private readonly db: Database) {}

  private get posts(): string {
    return this.db.table('planned_posts');
  }

  private get targets(): string {
    return this.db.table('planned_post_targets');
  }

  /**
   * Inserts the post and its targets, unless the account already has a post with this idempotency
   * key: then nothing is written and `created` is false (the unique index decides, so concurrent
   * requests with one key store one post). Call inside `db.transaction`.
   */
  async create(p: NewPlannedPost): Promise<{ id: number; created: boolean }> {
    const row = await this.db.one<{ id: number }>(
      `INSERT INTO ${this.posts} (account_id, publish_at, source, caption, title, idempotency_key, notes)
       VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7::jsonb)
       ON CONFLICT (account_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING RETURNING id`,
      [p.account_id, p.publish_at, JSON.stringify(p.source), p.caption, p.title, p.idempotency_key, JSON.stringify(p.notes)],
    );
    if (!row) {
      const existing = await this.db.one<{ id: number }>(`SELECT id FROM ${this.posts} WHERE account_id = $1 AND idempotency_key = $2`, [p.account_id, p.idempotency_key]);
      return { id: existing!.id, created: false };
    }
    for (const t of p.targets) {
      await this.db.affected(
        `INSERT INTO ${this.targets} (planned_post_id, account_id, platform, status, publish_at, next_attempt_at) VALUES ($1, $2, $3, 'scheduled', $4, $4)`,
        [row.id, p.account_id, t.platform, t.publish_at],
      );
    }
    return { id: row.id, created: true };
  }

  find(accountId: number, id: number): Promise<PlannedPostRow | null> {
    return this.db.one<PlannedPostRow>(`SELECT * FROM ${this.posts} WHERE account_id = $1 AND id = $2`, [accountId, id]);
  }

  list(accountId: number, opts: { status?: string; limit: number }): Promise<PlannedPostRow[]> {
    const params: unknown[] = [accountId, opts.limit];
    let filter = '';
    if (opts.status) {
      params.push(opts.status);
      filter = 'AND status = $3';
    }
    return this.db.rows<PlannedPostRow>(`SELECT * FROM ${this.posts} WHERE account_id = $1 ${filter} ORDER BY id DESC LIMIT $2`, params);
  }

  /** The targets of these posts, in creation order. */
  targetsOf(postIds: number[]): Promise<TargetRow[]> {
    if (!postIds.length) return Promise.resolve([]);
    return this.db.rows<TargetRow>(`SELECT * FROM ${this.targets} WHERE planned_post_id = ANY($1::int[]) ORDER BY id`, [postIds]);
  }

  /** Cancels an open post whose targets are all still scheduled; false otherwise. Call inside `db.transaction`. */
  async cancel(accountId: number, id: number): Promise<boolean> {
    const post = await this.db.one<{ id: number }>(
      `SELECT id FROM ${this.posts} p WHERE account_id = $1 AND id = $2 AND status = 'open'
          AND NOT EXISTS (SELECT 1 FROM ${this.targets} t WHERE t.planned_post_id = p.id AND t.status <> 'scheduled')
        FOR UPDATE`,
      [accountId, id],
    );
    if (!post) return false;
    await this.db.affected(`UPDATE ${this.targets} SET status = 'cancelled', lease_until = NULL, updated_at = now() WHERE planned_post_id = $1`, [id]);
    await this.db.affected(`UPDATE ${this.posts} SET status = 'cancelled', updated_at = now() WHERE id = $1`, [id]);
    return true;
  }

  /**
   * Targets due at `now`, leased to this replica: scheduled ones whose time came (Instagram ones
   * `prepareMinutes` early: their reel prepares its container and goes online at publish_at), and YouTube
   * uploads (resumed from their session) and Instagram hand-overs left in `publishing` by a replica
   * whose lease ran out.
   */
  claimDue(now: Date, prepareMinutes: number, limit: number, leaseSeconds: number): Promise<TargetRow[]> {
    return this.db.claimDue<TargetRow>({
      table: this.targets,
      where: `((status = 'scheduled' AND (next_attempt_at IS NULL OR next_attempt_at <= $1)
                 AND publish_at <= $1::timestamptz + CASE WHEN platform = 'instagram' THEN make_interval(mins => $2::int) ELSE interval '0' END)
               OR (status = 'publishing' AND (platform = 'youtube' OR reel_id IS NULL)))`,
      params: [now, prepareMinutes],
      orderBy: 'publish_at ASC, id ASC',
      limit,
      lease: { column: 'lease_until', seconds: leaseSeconds },
      set: `status = 'publishing', updated_at = now()`,
    });
  }

  /** An Instagram target handed to its scheduled reel (it then follows the reel's status). */
  async handToReel(targetId: number, reelId: number): Promise<void> {
    await this.db.affected(`UPDATE ${this.targets} SET reel_id = $2, lease_until = NULL, updated_at = now() WHERE id = $1`, [targetId, reelId]);
  }

  async saveUploadUrl(targetId: number, url: string): Promise<void> {
    await this.db.affected(`UPDATE ${this.targets} SET upload_url = $2, updated_at = now() WHERE id = $1`, [targetId, url]);
  }

  async published(targetId: number, r: { external_id: string; permalink: string; published_at: Date }): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.targets} SET status = 'published', external_id = $2, permalink = $3, published_at = $4, error = NULL, lease_until = NULL, updated_at = now()
        WHERE id = $1 AND status = 'publishing'`,
      [targetId, r.external_id, r.permalink, r.published_at],
    );
  }

  /** A failed attempt: `retryAt` schedules another (status back to scheduled), else the target failed. */
  async attemptFailed(targetId: number, error: string, attempts: number, retryAt: Date | null): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.targets} SET status = $2, error = $3, attempts = $4, next_attempt_at = $5, lease_until = NULL, updated_at = now()
        WHERE id = $1 AND status = 'publishing'`,
      [targetId, retryAt ? 'scheduled' : 'failed', error.slice(0, 2000), attempts, retryAt],
    );
  }

  /**
   * Instagram targets whose reel reached an end state take its result (one statement, idempotent,
   * any replica); answers the posts that changed.
   */
  async syncFromReels(): Promise<number[]> {
    const rows = await this.db.rows<{ planned_post_id: number }>(
      `UPDATE ${this.targets} t
          SET status = r.status, external_id = r.media_id, permalink = r.permalink, published_at = r.published_at, error = r.error, updated_at = now()
         FROM ${this.db.table('reels')} r
        WHERE t.reel_id = r.id AND t.status = 'publishing' AND r.status IN ('published','failed','cancelled')
        RETURNING t.planned_post_id`,
    );
    return [...new Set(rows.map((r) => r.planned_post_id))];
  }

  /**
   * An open post whose targets all ended gets its status: published (all), failed (none
   * published), partial (some); answers how many posts changed.
   */
  settle(postIds: number[]): Promise<number> {
    if (!postIds.length) return Promise.resolve(0);
    return this.db.affected(
      `UPDATE ${this.posts} p SET status = CASE WHEN s.published = s.total THEN 'published' WHEN s.published = 0 THEN 'failed' ELSE 'partial' END, updated_at = now()
         FROM (SELECT planned_post_id, count(*) AS total, count(*) FILTER (WHERE status = 'published') AS published,
                      count(*) FILTER (WHERE status IN ('scheduled','publishing')) AS open
                 FROM ${this.targets} WHERE planned_post_id = ANY($1::int[]) GROUP BY planned_post_id) s
        WHERE p.id = s.planned_post_id AND p.status = 'open' AND s.open = 0`,
      [postIds],
    );
  }
}
