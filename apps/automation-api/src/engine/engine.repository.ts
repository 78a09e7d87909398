import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { claimDue, PreparedStatements, schemaOfDataSource } from '@platform/database';
import { DataSource, type EntityManager } from 'typeorm';
import { AutomationEntity } from '../automations/entities/automation.entity';
import type { ContactEntity } from '../contacts/entities/contact.entity';
import type { RunState } from '../runs/entities/run.entity';
import type { RunStamp } from './run-machine';

/** Kinds of work items in `inbound_events`. */
export type InboundKind = 'comment' | 'message' | 'story_reply' | 'postback' | 'follow_up' | 'backfill';

export interface NewInbound {
  account_id: number;
  dedup_key: string;
  kind: InboundKind;
  /** Per-person ordering key: items of one subject are processed one at a time, oldest first. */
  subject: string;
  payload: Record<string, unknown>;
  /** Not before this time (default: now). */
  not_before?: Date;
}

/** What the webhook receiver needs of an account: its id and signature secret by `entry.id`. */
export interface WebhookAccount {
  id: number;
  ig_user_id: string;
  app_secret: string | null;
}

export interface InboundRow {
  id: string;
  account_id: number;
  dedup_key: string;
  kind: InboundKind;
  subject: string;
  payload: Record<string, any>;
  attempts: number;
  applied_at: Date | null;
  run_id: string | null;
}

export interface RunRow {
  id: string;
  account_id: number;
  automation_id: number;
  contact_ig_id: string;
  username: string | null;
  trigger: string;
  media_id: string | null;
  comment_id: string | null;
  parent_comment_id: string | null;
  message_id: string | null;
  state: RunState;
  transition: boolean;
  version: number;
  email: string | null;
  public_reply_sent_at: Date | null;
  dm_sent_at: Date | null;
  button_tapped_at: Date | null;
  gated_at: Date | null;
  gate_passed_at: Date | null;
  email_asked_at: Date | null;
  email_retry_at: Date | null;
  email_captured_at: Date | null;
  email_expired_at: Date | null;
  link_sent_at: Date | null;
  clicked_at: Date | null;
  click_count: number;
  followed_up_at: Date | null;
  /** The opening/gate button template was refused and sent as text: a text message counts as the tap. */
  text_fallback: boolean;
}

export interface SendRow {
  id: string;
  status: 'intent' | 'done' | 'failed';
  kind: 'public_reply' | 'private_reply' | 'dm';
  payload: Record<string, any>;
  platform_id: string | null;
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
];

function rowsOf<T>(raw: unknown): T[] {
  // TypeORM answers [rows, affected] for UPDATE … RETURNING on PostgreSQL.
  return (Array.isArray(raw) && Array.isArray(raw[0]) ? raw[0] : raw) as T[];
}

/** Every SQL statement of the engine: the work queue, runs, send intents, contacts, clicks. */
@Injectable()
export class EngineRepository {
  private readonly prepared: PreparedStatements;

  constructor(@InjectDataSource() readonly ds: DataSource) {
    this.prepared = new PreparedStatements(ds);
  }

  get s(): string {
    return schemaOfDataSource(this.ds);
  }

  private q(m?: EntityManager) {
    return m ?? this.ds.manager;
  }

  // ── work queue ────────────────────────────────────────────────────────────────────────────────

  /**
   * Stores work items, one statement whatever their number; duplicates (same platform id, already
   * stored or twice in `items`) are ignored. Answers the dedup keys of the items that were new.
   * Without a transaction `m` it is a prepared statement on its own commit (the webhook receiver's
   * hot path); the text is the same for any number of items, as they travel as arrays.
   */
  async insertInbound(items: NewInbound[], m?: EntityManager): Promise<string[]> {
    if (items.length === 0) return [];
    const text = `INSERT INTO ${this.s}.inbound_events (account_id, dedup_key, kind, subject, payload, next_attempt_at)
       SELECT i.account_id, i.dedup_key, i.kind, i.subject, i.payload, COALESCE(i.not_before, now())
       FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::jsonb[], $6::timestamptz[]) AS i(account_id, dedup_key, kind, subject, payload, not_before)
       ON CONFLICT (dedup_key) DO NOTHING RETURNING dedup_key`;
    const values = [
      items.map((it) => it.account_id),
      items.map((it) => it.dedup_key),
      items.map((it) => it.kind),
      items.map((it) => it.subject),
      items.map((it) => JSON.stringify(it.payload)),
      items.map((it) => it.not_before?.toISOString() ?? null),
    ];
    const rows: Array<{ dedup_key: string }> = m ? await m.query(text, values) : await this.prepared.query(`automation_inbound_insert_${this.s}`, text, values);
    return rows.map((r) => r.dedup_key);
  }

  /**
   * Claims due work items, at most one per subject (the oldest due one), with a lease: another
   * replica skips them, and a crashed worker's items come back when the lease ends.
   */
  claimInbound(now: Date, limit: number, leaseSeconds: number): Promise<InboundRow[]> {
    const t = `${this.s}.inbound_events`;
    return claimDue<InboundRow>(this.ds, {
      table: t,
      where: `${t}.processed_at IS NULL AND ${t}.next_attempt_at <= $1 AND NOT EXISTS (
                SELECT 1 FROM ${t} p WHERE p.subject = ${t}.subject AND p.processed_at IS NULL
                   AND p.id < ${t}.id AND p.next_attempt_at <= $1)`,
      params: [now],
      orderBy: 'next_attempt_at ASC, id ASC',
      limit,
      lease: { column: 'lease_until', seconds: leaseSeconds },
    });
  }

  async renewLease(id: string, seconds: number): Promise<void> {
    await this.ds.query(`UPDATE ${this.s}.inbound_events SET lease_until = now() + make_interval(secs => $2::double precision) WHERE id = $1`, [
      id,
      seconds,
    ]);
  }

  async markApplied(m: EntityManager, id: string, runId: string | null): Promise<void> {
    await m.query(`UPDATE ${this.s}.inbound_events SET applied_at = now(), run_id = $2 WHERE id = $1`, [id, runId]);
  }

  async markProcessed(id: string, error: string | null = null): Promise<void> {
    await this.ds.query(`UPDATE ${this.s}.inbound_events SET processed_at = now(), lease_until = NULL, error = $2 WHERE id = $1`, [id, error]);
  }

  async reschedule(id: string, at: Date, error: string | null, countAttempt: boolean): Promise<void> {
    await this.ds.query(
      `UPDATE ${this.s}.inbound_events SET next_attempt_at = $2, lease_until = NULL, error = $3, attempts = attempts + $4 WHERE id = $1`,
      [id, at, error, countAttempt ? 1 : 0],
    );
  }

  async deleteProcessed(days: number): Promise<void> {
    await this.ds.query(`DELETE FROM ${this.s}.inbound_events WHERE processed_at < now() - make_interval(days => $1::int)`, [days]);
  }

  async pendingInbound(): Promise<number> {
    const [row] = await this.ds.query(`SELECT count(*)::int AS n FROM ${this.s}.inbound_events WHERE processed_at IS NULL`);
    return row.n;
  }

  // ── automations ───────────────────────────────────────────────────────────────────────────────

  /** Automations that answer now: status active, active true, for this trigger. */
  /**
   * Accounts with next_post automations to look after (waiting for a reel, or attached and not yet
   * backfilled), leased for `leaseSeconds` so that one replica checks an account per interval.
   */
  async claimReelAccounts(limit: number, leaseSeconds: number): Promise<number[]> {
    const s = this.s;
    const rows = await claimDue<{ id: number }>(this.ds, {
      table: `${s}.accounts`,
      where: `EXISTS (SELECT 1 FROM ${s}.automations a WHERE a.account_id = ${s}.accounts.id AND a.next_post
                AND (a.reel_status = 'waiting' OR (a.reel_status = 'attached' AND a.reel_backfilled_at IS NULL)))`,
      orderBy: 'id',
      limit,
      lease: { column: 'reel_lease_until', seconds: leaseSeconds },
    });
    return rows.map((r) => r.id);
  }

  /** The account's next_post automations. */
  nextPostAutomations(accountId: number): Promise<AutomationEntity[]> {
    return this.ds.getRepository(AutomationEntity).find({ where: { account_id: accountId, next_post: true } });
  }

  async liveAutomations(accountId: number, trigger: string, m?: EntityManager): Promise<AutomationEntity[]> {
    return this.q(m).getRepository(AutomationEntity).find({ where: { account_id: accountId, status: 'active', active: true, trigger: trigger as AutomationEntity['trigger'] } });
  }

  async automation(id: number, m?: EntityManager): Promise<AutomationEntity | null> {
    return this.q(m).getRepository(AutomationEntity).findOne({ where: { id } });
  }

  // ── contacts ──────────────────────────────────────────────────────────────────────────────────

  /**
   * Upserts the person on an inbound: counts comments or messages, stamps first/last seen, and
   * `last_inbound_at` (the 24-hour messaging window) for messages and taps.
   */
  async touchContact(m: EntityManager, accountId: number, igId: string, username: string | null, kind: 'comment' | 'message' | 'tap', at: Date): Promise<void> {
    const comment = kind === 'comment' ? 1 : 0;
    const dm = kind === 'message' ? 1 : 0;
    const inbound = kind === 'comment' ? null : at;
    await m.query(
      `INSERT INTO ${this.s}.contacts (account_id, ig_id, username, comment_count, dm_count, first_seen_at, last_seen_at, last_inbound_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6, $7)
       ON CONFLICT (account_id, ig_id) DO UPDATE SET
         username = COALESCE(EXCLUDED.username, ${this.s}.contacts.username),
         comment_count = ${this.s}.contacts.comment_count + $4,
         dm_count = ${this.s}.contacts.dm_count + $5,
         last_seen_at = GREATEST(${this.s}.contacts.last_seen_at, $6),
         last_inbound_at = CASE WHEN $7::timestamptz IS NULL THEN ${this.s}.contacts.last_inbound_at
                                ELSE GREATEST(COALESCE(${this.s}.contacts.last_inbound_at, $7), $7) END,
         updated_at = now()`,
      [accountId, igId, username, comment, dm, at, inbound],
    );
  }

  async contact(accountId: number, igId: string, m?: EntityManager): Promise<ContactEntity | null> {
    const [row] = await this.q(m).query(`SELECT * FROM ${this.s}.contacts WHERE account_id = $1 AND ig_id = $2`, [accountId, igId]);
    return row ?? null;
  }

  /** Adds tags (set union); `source` is written when given. */
  async tagContact(m: EntityManager, accountId: number, igId: string, tags: string[], source?: string): Promise<void> {
    if (tags.length === 0 && !source) return;
    await m.query(
      `UPDATE ${this.s}.contacts SET
         tags = (SELECT COALESCE(jsonb_agg(DISTINCT t), '[]'::jsonb) FROM jsonb_array_elements_text(tags || $3::jsonb) AS t),
         source = COALESCE($4, source), updated_at = now()
       WHERE account_id = $1 AND ig_id = $2`,
      [accountId, igId, JSON.stringify(tags), source ?? null],
    );
  }

  async setContactEmail(m: EntityManager, accountId: number, igId: string, email: string): Promise<void> {
    await m.query(`UPDATE ${this.s}.contacts SET email = $3, updated_at = now() WHERE account_id = $1 AND ig_id = $2`, [accountId, igId, email]);
  }

  async setContactFollows(accountId: number, igId: string, follows: boolean | null, username?: string | null): Promise<void> {
    await this.ds.query(
      `UPDATE ${this.s}.contacts SET follows = $3, username = COALESCE($4, username), updated_at = now() WHERE account_id = $1 AND ig_id = $2`,
      [accountId, igId, follows === null ? null : follows ? 1 : 0, username ?? null],
    );
  }

  // ── runs ──────────────────────────────────────────────────────────────────────────────────────

  /** Creates the run; the unique (automation, comment) / (automation, message) keys make it once. */
  async insertRun(
    m: EntityManager,
    r: Pick<RunRow, 'account_id' | 'automation_id' | 'contact_ig_id' | 'username' | 'trigger' | 'media_id' | 'comment_id' | 'parent_comment_id' | 'message_id' | 'transition'> & {
      trigger_text: string | null;
      state?: RunState;
      /** Failure text or skip reason. */
      error?: string | null;
    },
  ): Promise<RunRow | null> {
    const rows = await m.query(
      `INSERT INTO ${this.s}.runs (account_id, automation_id, contact_ig_id, username, trigger, media_id, comment_id, parent_comment_id, message_id, trigger_text, transition, state, error)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT DO NOTHING RETURNING *`,
      [r.account_id, r.automation_id, r.contact_ig_id, r.username, r.trigger, r.media_id, r.comment_id, r.parent_comment_id, r.message_id, r.trigger_text, r.transition, r.state ?? 'started', r.error ?? null],
    );
    return rows[0] ?? null;
  }

  async run(id: string, m?: EntityManager): Promise<RunRow | null> {
    const [row] = await this.q(m).query(`SELECT * FROM ${this.s}.runs WHERE id = $1`, [id]);
    return row ?? null;
  }

  async runForTrigger(automationId: number, commentId: string | null, messageId: string | null, m?: EntityManager): Promise<RunRow | null> {
    const [row] = commentId
      ? await this.q(m).query(`SELECT * FROM ${this.s}.runs WHERE automation_id = $1 AND comment_id = $2`, [automationId, commentId])
      : await this.q(m).query(`SELECT * FROM ${this.s}.runs WHERE automation_id = $1 AND message_id = $2`, [automationId, messageId]);
    return row ?? null;
  }

  async hasRun(automationId: number, igId: string, m?: EntityManager): Promise<boolean> {
    const [row] = await this.q(m).query(`SELECT 1 FROM ${this.s}.runs WHERE automation_id = $1 AND contact_ig_id = $2 AND NOT (state = 'skipped' AND error = 'once_per_user') LIMIT 1`, [
      automationId,
      igId,
    ]);
    return Boolean(row);
  }

  /** Any run of the account for this comment (whatever automation). */
  async commentHandled(accountId: number, commentId: string): Promise<boolean> {
    const [row] = await this.ds.query(
      `SELECT 1 FROM ${this.s}.runs WHERE account_id = $1 AND comment_id = $2
       UNION ALL SELECT 1 FROM ${this.s}.comment_replies WHERE account_id = $1 AND comment_id = $2 LIMIT 1`,
      [accountId, commentId],
    );
    return Boolean(row);
  }

  /** The person's most recent run waiting for an email. */
  async awaitingEmailRun(accountId: number, igId: string, m?: EntityManager): Promise<RunRow | null> {
    const [row] = await this.q(m).query(
      `SELECT * FROM ${this.s}.runs WHERE account_id = $1 AND contact_ig_id = $2 AND state = 'awaiting_email' ORDER BY id DESC LIMIT 1`,
      [accountId, igId],
    );
    return row ?? null;
  }

  /** The person's newest run waiting for a tap whose button went out as text (a text message is the tap). */
  async awaitingTapByTextRun(accountId: number, igId: string, m?: EntityManager): Promise<RunRow | null> {
    const [row] = await this.q(m).query(
      `SELECT * FROM ${this.s}.runs WHERE account_id = $1 AND contact_ig_id = $2 AND state IN ('awaiting_tap', 'gated') AND text_fallback ORDER BY id DESC LIMIT 1`,
      [accountId, igId],
    );
    return row ?? null;
  }

  async setTextFallback(runId: string): Promise<void> {
    await this.ds.query(`UPDATE ${this.s}.runs SET text_fallback = true WHERE id = $1`, [runId]);
  }

  /**
   * Stores a transition when the run is still at `version` (optimistic lock); new step stamps keep
   * their first time. False when another worker moved the run meanwhile.
   */
  async updateRun(
    m: EntityManager,
    run: RunRow,
    patch: { state: RunState; stamps: RunStamp[]; email?: string | null; follow_up_due_at?: Date | null; error?: string | null },
    at: Date,
  ): Promise<boolean> {
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
    const rows = rowsOf(await m.query(`UPDATE ${this.s}.runs SET ${sets.join(', ')} WHERE id = $1 AND version = $2 RETURNING id`, params));
    return rows.length === 1;
  }

  /** Marks a run as failed (platform error), whatever its version. */
  async failRun(runId: string, error: string): Promise<void> {
    await this.ds.query(
      `UPDATE ${this.s}.runs SET state = 'error', error = $2, version = version + 1, updated_at = now()
       WHERE id = $1 AND state NOT IN ('done', 'skipped', 'skipped_other_tool')`,
      [runId, error.slice(0, 2000)],
    );
  }

  // ── send intents ──────────────────────────────────────────────────────────────────────────────

  async findSend(runId: string, stepKey: string): Promise<SendRow | null> {
    const [row] = await this.ds.query(`SELECT id, status, kind, payload, platform_id FROM ${this.s}.run_sends WHERE run_id = $1 AND step_key = $2`, [
      runId,
      stepKey,
    ]);
    return row ?? null;
  }

  async hasSends(runId: string): Promise<boolean> {
    const [row] = await this.ds.query(`SELECT 1 FROM ${this.s}.run_sends WHERE run_id = $1 LIMIT 1`, [runId]);
    return Boolean(row);
  }

  /** Records the intent (before calling the platform). Returns the stored row (an older one wins). */
  async recordIntent(accountId: number, runId: string, stepKey: string, kind: SendRow['kind'], payload: Record<string, unknown>): Promise<SendRow> {
    await this.ds.query(
      `INSERT INTO ${this.s}.run_sends (account_id, run_id, step_key, kind, payload) VALUES ($1, $2, $3, $4, $5::jsonb) ON CONFLICT (run_id, step_key) DO NOTHING`,
      [accountId, runId, stepKey, kind, JSON.stringify(payload)],
    );
    return (await this.findSend(runId, stepKey))!;
  }

  /** Replaces the payload of an unconfirmed intent (the text fallback of a refused template). */
  async replaceIntentPayload(id: string, payload: Record<string, unknown>): Promise<SendRow> {
    const [row] = rowsOf<SendRow>(
      await this.ds.query(`UPDATE ${this.s}.run_sends SET payload = $2::jsonb WHERE id = $1 AND status = 'intent' RETURNING id, status, kind, payload, platform_id`, [
        id,
        JSON.stringify(payload),
      ]),
    );
    if (!row) throw new Error(`send ${id} is no longer an open intent`);
    return row;
  }

  async sendDone(id: string, platformId: string | null, note: string | null = null): Promise<void> {
    await this.ds.query(`UPDATE ${this.s}.run_sends SET status = 'done', platform_id = $2, error = $3, done_at = now() WHERE id = $1`, [id, platformId, note]);
  }

  async sendFailed(id: string, error: string): Promise<void> {
    await this.ds.query(`UPDATE ${this.s}.run_sends SET status = 'failed', error = $2, done_at = now() WHERE id = $1`, [id, error.slice(0, 2000)]);
  }

  async recordCommentReply(accountId: number, commentId: string, mediaId: string | null, kind: 'public_reply' | 'private_reply', replyId: string | null, runId: string): Promise<void> {
    await this.ds.query(
      `INSERT INTO ${this.s}.comment_replies (account_id, comment_id, media_id, kind, reply_id, run_id) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (account_id, comment_id, kind) DO NOTHING`,
      [accountId, commentId, mediaId, kind, replyId, runId],
    );
  }

  /**
   * Ids of the public replies the service posted in a thread: under the top-level comment
   * `parentId` itself or for any reply in it (those replies are posted under the parent).
   */
  async ownReplyIdsInThread(accountId: number, parentId: string): Promise<Set<string>> {
    const rows: Array<{ id: string | null }> = await this.ds.query(
      `SELECT cr.reply_id AS id FROM ${this.s}.comment_replies cr
        WHERE cr.account_id = $1 AND (cr.comment_id = $2 OR cr.comment_id IN (SELECT comment_id FROM ${this.s}.runs WHERE account_id = $1 AND parent_comment_id = $2))
       UNION SELECT public_reply_id FROM ${this.s}.runs WHERE account_id = $1 AND (comment_id = $2 OR parent_comment_id = $2)`,
      [accountId, parentId],
    );
    return new Set(rows.map((r) => r.id).filter((x): x is string => x !== null));
  }

  /** Ids of the public replies the service posted (or tried to) under a comment. */
  async ownReplyIds(accountId: number, commentId: string): Promise<Set<string>> {
    const rows: Array<{ id: string | null }> = await this.ds.query(
      `SELECT reply_id AS id FROM ${this.s}.comment_replies WHERE account_id = $1 AND comment_id = $2
       UNION SELECT public_reply_id FROM ${this.s}.runs WHERE account_id = $1 AND comment_id = $2`,
      [accountId, commentId],
    );
    return new Set(rows.map((r) => r.id).filter((x): x is string => x !== null));
  }

  async setRunUsername(runId: string, username: string): Promise<void> {
    await this.ds.query(`UPDATE ${this.s}.runs SET username = $2 WHERE id = $1 AND username IS NULL`, [runId, username]);
  }

  async setPublicReplyId(runId: string, replyId: string): Promise<void> {
    await this.ds.query(`UPDATE ${this.s}.runs SET public_reply_id = $2 WHERE id = $1`, [runId, replyId]);
  }

  // ── click links ───────────────────────────────────────────────────────────────────────────────

  /** The tracked link of a run's button, created once (the same token when the link is sent again). */
  async clickLink(accountId: number, automationId: number, runId: string, position: number, url: string, newToken: () => string): Promise<string> {
    const [existing] = await this.ds.query(`SELECT token FROM ${this.s}.click_links WHERE run_id = $1 AND position = $2 ORDER BY id LIMIT 1`, [runId, position]);
    if (existing) return existing.token;
    const token = newToken();
    await this.ds.query(
      `INSERT INTO ${this.s}.click_links (token, account_id, automation_id, run_id, url, position) VALUES ($1, $2, $3, $4, $5, $6)`,
      [token, accountId, automationId, runId, url, position],
    );
    return token;
  }

  // ── customer webhooks ─────────────────────────────────────────────────────────────────────────

  async insertDelivery(m: EntityManager, d: { account_id: number; automation_id: number; run_id: string; kind: string; url: string; payload: object }): Promise<void> {
    await m.query(
      `INSERT INTO ${this.s}.webhook_deliveries (account_id, automation_id, run_id, kind, url, payload) VALUES ($1, $2, $3, $4, $5, $6::jsonb)`,
      [d.account_id, d.automation_id, d.run_id, d.kind, d.url, JSON.stringify(d.payload)],
    );
  }

  // ── accounts (webhook routing) ────────────────────────────────────────────────────────────────

  /** Accounts by professional account id (webhook `entry.id`). */
  async accountsByIgUserIds(ids: string[]): Promise<WebhookAccount[]> {
    if (ids.length === 0) return [];
    return this.ds.query(`SELECT id, ig_user_id, app_secret FROM ${this.s}.accounts WHERE ig_user_id = ANY($1::text[])`, [ids]);
  }

  async verifyTokenKnown(token: string): Promise<boolean> {
    const [row] = await this.ds.query(`SELECT 1 FROM ${this.s}.accounts WHERE verify_token = $1 LIMIT 1`, [token]);
    return Boolean(row);
  }

  // ── next_post ─────────────────────────────────────────────────────────────────────────────────

  /** Attaches a waiting automation to its reel (media_ids = [reel]); false when it is no longer waiting. */
  async attachReel(automationId: number, mediaId: string, at: Date): Promise<boolean> {
    const rows = rowsOf(
      await this.ds.query(
        `UPDATE ${this.s}.automations SET reel_status = 'attached', reel_media_id = $2, media_ids = jsonb_build_array($2::text), reel_attached_at = $3,
           pending_next = false, reel_suggestion = NULL, updated_at = now()
         WHERE id = $1 AND reel_status = 'waiting' RETURNING id`,
        [automationId, mediaId, at],
      ),
    );
    return rows.length === 1;
  }

  async suggestReel(automationId: number, suggestion: object): Promise<boolean> {
    const rows = rowsOf(
      await this.ds.query(`UPDATE ${this.s}.automations SET reel_suggestion = $2::jsonb, updated_at = now() WHERE id = $1 AND reel_status = 'waiting' RETURNING id`, [
        automationId,
        JSON.stringify(suggestion),
      ]),
    );
    return rows.length === 1;
  }

  async expireReel(automationId: number, at: Date): Promise<boolean> {
    const rows = rowsOf(
      await this.ds.query(
        `UPDATE ${this.s}.automations SET reel_status = 'expired', reel_expired_at = $2, pending_next = false, updated_at = now()
         WHERE id = $1 AND reel_status = 'waiting' RETURNING id`,
        [automationId, at],
      ),
    );
    return rows.length === 1;
  }

  /** Attached next_post automations whose reel comments were not queued yet. */
  reelsToBackfill(accountId: number): Promise<Array<{ id: number; reel_media_id: string }>> {
    return this.ds.query(
      `SELECT id, reel_media_id FROM ${this.s}.automations
        WHERE account_id = $1 AND next_post AND reel_status = 'attached' AND reel_media_id IS NOT NULL AND reel_backfilled_at IS NULL`,
      [accountId],
    );
  }

  async markReelBackfilled(automationId: number): Promise<void> {
    await this.ds.query(`UPDATE ${this.s}.automations SET reel_backfilled_at = now() WHERE id = $1`, [automationId]);
  }

  async existingDedupKeys(keys: string[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const rows: Array<{ dedup_key: string }> = await this.ds.query(`SELECT dedup_key FROM ${this.s}.inbound_events WHERE dedup_key = ANY($1::text[])`, [keys]);
    return new Set(rows.map((r) => r.dedup_key));
  }
}
