import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { RunRow, RunStamp, RunState } from './run';

export interface ServiceAnswers {
  /** Comments the service answered (public reply, private reply or a run that sent a DM). */
  answeredComments: Set<string>;
  /** Ids of the public replies the service posted. */
  ownReplyIds: Set<string>;
}

export type NewRun = Pick<RunRow, 'account_id' | 'automation_id' | 'contact_ig_id' | 'username' | 'trigger' | 'media_id' | 'comment_id' | 'parent_comment_id' | 'message_id' | 'transition'> & {
  trigger_text: string | null;
  state?: RunState;
  /** Failure text or skip reason. */
  error?: string | null;
};

export interface RunPatch {
  state: RunState;
  stamps: RunStamp[];
  email?: string | null;
  follow_up_due_at?: Date | null;
  error?: string | null;
}

const STAMP_COLUMNS: readonly RunStamp[] = [
  'public_reply_sent_at',
  'dm_sent_at',
  'button_tapped_at',
  'gated_at',
  'gate_passed_at',
  'email_asked_at',
  'email_retry_at',
  'email_captured_at',
  'email_expired_at',
  'link_sent_at',
  'followed_up_at',
  'read_fallback_at',
];

/**
 * Runs (one person going through one automation) and the service's own answers to comments
 * (`comment_replies`): what the engine writes and what the posts, status and engine read.
 */
@Injectable()
export class RunsRepository {
  constructor(private readonly db: Database) {}

  private get s(): string {
    return this.db.schema;
  }

  // ── runs ──────────────────────────────────────────────────────────────────────────────────────

  /** Creates the run; the unique (automation, comment) / (automation, message) keys make it once (null: it exists). */
  insert(r: NewRun): Promise<RunRow | null> {
    return this.db.one<RunRow>(
      `INSERT INTO ${this.s}.runs (account_id, automation_id, contact_ig_id, username, trigger, media_id, comment_id, parent_comment_id, message_id, trigger_text, transition, state, error)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT DO NOTHING RETURNING *`,
      [r.account_id, r.automation_id, r.contact_ig_id, r.username, r.trigger, r.media_id, r.comment_id, r.parent_comment_id, r.message_id, r.trigger_text, r.transition, r.state ?? 'started', r.error ?? null],
    );
  }

  find(id: string): Promise<RunRow | null> {
    return this.db.one<RunRow>(`SELECT * FROM ${this.s}.runs WHERE id = $1`, [id]);
  }

  /** The run an automation started for a comment (or, without one, for a message). */
  forTrigger(automationId: number, commentId: string | null, messageId: string | null): Promise<RunRow | null> {
    return commentId
      ? this.db.one<RunRow>(`SELECT * FROM ${this.s}.runs WHERE automation_id = $1 AND comment_id = $2`, [automationId, commentId])
      : this.db.one<RunRow>(`SELECT * FROM ${this.s}.runs WHERE automation_id = $1 AND message_id = $2`, [automationId, messageId]);
  }

  /**
   * Whether the person went through the automation (once_per_user). Runs that reserved nothing do
   * not count: skips by once_per_user, the plan, STOP or a human takeover, and runs that ended (error,
   * or skipped: the private-reply window closed) before any DM reached the person — a permanent
   * failure releases the reservation, so a later comment can try again.
   */
  async hasRun(automationId: number, igId: string): Promise<boolean> {
    const row = await this.db.one(
      `SELECT 1 FROM ${this.s}.runs WHERE automation_id = $1 AND contact_ig_id = $2
          AND NOT (state = 'skipped' AND error IN ('once_per_user', 'plan_limit', 'opted_out', 'human_takeover'))
          AND NOT (state IN ('error', 'skipped') AND dm_sent_at IS NULL AND link_sent_at IS NULL AND error IS DISTINCT FROM 'stopped_by_person') LIMIT 1`,
      [automationId, igId],
    );
    return row !== null;
  }

  /** The person's most recent run waiting for an email. */
  awaitingEmail(accountId: number, igId: string): Promise<RunRow | null> {
    return this.db.one<RunRow>(
      `SELECT * FROM ${this.s}.runs WHERE account_id = $1 AND contact_ig_id = $2 AND state = 'awaiting_email' ORDER BY id DESC LIMIT 1`,
      [accountId, igId],
    );
  }

  /** The person's newest run waiting for a tap whose button went out as text (a text message is the tap). */
  awaitingTapByText(accountId: number, igId: string): Promise<RunRow | null> {
    return this.db.one<RunRow>(
      `SELECT * FROM ${this.s}.runs WHERE account_id = $1 AND contact_ig_id = $2 AND state IN ('awaiting_tap', 'gated') AND text_fallback ORDER BY id DESC LIMIT 1`,
      [accountId, igId],
    );
  }

  async setTextFallback(runId: string): Promise<void> {
    await this.db.affected(`UPDATE ${this.s}.runs SET text_fallback = true WHERE id = $1`, [runId]);
  }

  async setUsername(runId: string, username: string): Promise<void> {
    await this.db.affected(`UPDATE ${this.s}.runs SET username = $2 WHERE id = $1 AND username IS NULL`, [runId, username]);
  }

  async setPublicReplyId(runId: string, replyId: string): Promise<void> {
    await this.db.affected(`UPDATE ${this.s}.runs SET public_reply_id = $2 WHERE id = $1`, [runId, replyId]);
  }

  /**
   * Stores a transition when the run is still at `version` (optimistic lock); new step stamps keep
   * their first time. False when another worker moved the run meanwhile.
   */
  async update(run: RunRow, patch: RunPatch, at: Date): Promise<boolean> {
    const sets = ['state = $3', 'version = version + 1', 'updated_at = now()'];
    const params: unknown[] = [run.id, run.version, patch.state];
    const stamps = STAMP_COLUMNS.filter((s) => patch.stamps.includes(s));
    if (stamps.length) {
      const stampParam = params.push(at);
      for (const stamp of stamps) sets.push(`${stamp} = COALESCE(${stamp}, $${stampParam})`);
    }
    if (patch.email !== undefined) sets.push(`email = $${params.push(patch.email)}`);
    if (patch.follow_up_due_at !== undefined) sets.push(`follow_up_due_at = $${params.push(patch.follow_up_due_at)}`);
    if (patch.error !== undefined) sets.push(`error = $${params.push(patch.error)}`);
    return (await this.db.affected(`UPDATE ${this.s}.runs SET ${sets.join(', ')} WHERE id = $1 AND version = $2`, params)) === 1;
  }

  /** The person's run waiting for the tap whose opening DM went out at or before `readUpTo` (newest first), or null. */
  awaitingTapReadBy(accountId: number, igId: string, readUpTo: Date): Promise<RunRow | null> {
    return this.db.one<RunRow>(
      `SELECT * FROM ${this.s}.runs WHERE account_id = $1 AND contact_ig_id = $2 AND state = 'awaiting_tap' AND button_tapped_at IS NULL
          AND dm_sent_at IS NOT NULL AND dm_sent_at <= $3 ORDER BY id DESC LIMIT 1`,
      [accountId, igId, readUpTo],
    );
  }

  /** Stamps the first read of the run's opening DM; false when it was read before. */
  async markRead(runId: string, at: Date): Promise<boolean> {
    return (await this.db.affected(`UPDATE ${this.s}.runs SET read_at = $2, updated_at = now() WHERE id = $1 AND read_at IS NULL`, [runId, at])) === 1;
  }

  /** Stamps the human takeover on the person's runs still going; the stamped runs with their automation. */
  markTakenOver(accountId: number, igId: string, at: Date): Promise<Array<{ id: string; automation_id: number }>> {
    return this.db.rows<{ id: string; automation_id: number }>(
      `UPDATE ${this.s}.runs SET taken_over_at = COALESCE(taken_over_at, $3), updated_at = now()
       WHERE account_id = $1 AND contact_ig_id = $2 AND state NOT IN ('done', 'skipped', 'skipped_other_tool', 'error')
       RETURNING id::text AS id, automation_id`,
      [accountId, igId, at],
    );
  }

  /** Ids of the person's runs (newest first, at most `limit`): their sends are the account's messages to the person. */
  async idsForPerson(accountId: number, igId: string, limit: number): Promise<string[]> {
    const rows = await this.db.rows<{ id: string }>(`SELECT id::text AS id FROM ${this.s}.runs WHERE account_id = $1 AND contact_ig_id = $2 ORDER BY id DESC LIMIT $3`, [accountId, igId, limit]);
    return rows.map((r) => r.id);
  }

  /**
   * Ends every run of the person that is still going (`skipped` with `reason`, a new version so that a
   * worker holding one stores nothing more); the ended runs with their automation.
   */
  async endForPerson(accountId: number, igId: string, reason: string): Promise<Array<{ id: string; automation_id: number }>> {
    return this.db.rows<{ id: string; automation_id: number }>(
      `UPDATE ${this.s}.runs SET state = 'skipped', error = $3, version = version + 1, updated_at = now()
       WHERE account_id = $1 AND contact_ig_id = $2 AND state NOT IN ('done', 'skipped', 'skipped_other_tool', 'error')
       RETURNING id::text AS id, automation_id`,
      [accountId, igId, reason],
    );
  }

  /** Marks a run as failed (platform error), whatever its version. */
  async fail(runId: string, error: string): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.s}.runs SET state = 'error', error = $2, version = version + 1, updated_at = now()
       WHERE id = $1 AND state NOT IN ('done', 'skipped', 'skipped_other_tool')`,
      [runId, error.slice(0, 2000)],
    );
  }

  async counts(accountId: number): Promise<{ runs: number; runs_last_24h: number; events: number }> {
    const row = await this.db.one<{ runs: number; runs_last_24h: number; events: number }>(
      `SELECT (SELECT count(*) FROM ${this.s}.runs WHERE account_id = $1)::int AS runs,
              (SELECT count(*) FROM ${this.s}.runs WHERE account_id = $1 AND created_at > now() - interval '24 hours')::int AS runs_last_24h,
              (SELECT count(*) FROM ${this.s}.events WHERE account_id = $1)::int AS events`,
      [accountId],
    );
    return row!;
  }

  // ── the service's answers to comments ─────────────────────────────────────────────────────────

  async recordCommentReply(accountId: number, commentId: string, mediaId: string | null, kind: 'public_reply' | 'private_reply', replyId: string | null, runId: string): Promise<void> {
    await this.db.rows(
      `INSERT INTO ${this.s}.comment_replies (account_id, comment_id, media_id, kind, reply_id, run_id) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (account_id, comment_id, kind) DO NOTHING`,
      [accountId, commentId, mediaId, kind, replyId, runId],
    );
  }

  /** Any run of the account for this comment (whatever automation), or a reply the service sent to it. */
  async commentHandled(accountId: number, commentId: string): Promise<boolean> {
    const row = await this.db.one(
      `SELECT 1 FROM ${this.s}.runs WHERE account_id = $1 AND comment_id = $2
       UNION ALL SELECT 1 FROM ${this.s}.comment_replies WHERE account_id = $1 AND comment_id = $2 LIMIT 1`,
      [accountId, commentId],
    );
    return row !== null;
  }

  /** Ids of the public replies the service posted (or tried to) under a comment. */
  async ownReplyIds(accountId: number, commentId: string): Promise<Set<string>> {
    const rows = await this.db.rows<{ id: string | null }>(
      `SELECT reply_id AS id FROM ${this.s}.comment_replies WHERE account_id = $1 AND comment_id = $2
       UNION SELECT public_reply_id FROM ${this.s}.runs WHERE account_id = $1 AND comment_id = $2`,
      [accountId, commentId],
    );
    return new Set(rows.map((r) => r.id).filter((x): x is string => x !== null));
  }

  /**
   * Ids of the public replies the service posted in a thread: under the top-level comment
   * `parentId` itself or for any reply in it (those replies are posted under the parent).
   */
  async ownReplyIdsInThread(accountId: number, parentId: string): Promise<Set<string>> {
    const rows = await this.db.rows<{ id: string | null }>(
      `SELECT cr.reply_id AS id FROM ${this.s}.comment_replies cr
        WHERE cr.account_id = $1 AND (cr.comment_id = $2 OR cr.comment_id IN (SELECT comment_id FROM ${this.s}.runs WHERE account_id = $1 AND parent_comment_id = $2))
       UNION SELECT public_reply_id FROM ${this.s}.runs WHERE account_id = $1 AND (comment_id = $2 OR parent_comment_id = $2)`,
      [accountId, parentId],
    );
    return new Set(rows.map((r) => r.id).filter((x): x is string => x !== null));
  }

  async serviceAnswers(accountId: number, commentIds: string[]): Promise<ServiceAnswers> {
    if (commentIds.length === 0) return { answeredComments: new Set(), ownReplyIds: new Set() };
    const replies = await this.db.rows<{ comment_id: string; reply_id: string | null }>(
      `SELECT comment_id, reply_id FROM ${this.s}.comment_replies WHERE account_id = $1 AND comment_id = ANY($2::text[])`,
      [accountId, commentIds],
    );
    const runs = await this.db.rows<{ comment_id: string; public_reply_id: string | null }>(
      `SELECT comment_id, public_reply_id FROM ${this.s}.runs
        WHERE account_id = $1 AND comment_id = ANY($2::text[])
          AND (dm_sent_at IS NOT NULL OR public_reply_sent_at IS NOT NULL OR link_sent_at IS NOT NULL)`,
      [accountId, commentIds],
    );
    return {
      answeredComments: new Set([...replies.map((r) => r.comment_id), ...runs.map((r) => r.comment_id)]),
      ownReplyIds: new Set([...replies.map((r) => r.reply_id), ...runs.map((r) => r.public_reply_id)].filter((x): x is string => x !== null)),
    };
  }
}
