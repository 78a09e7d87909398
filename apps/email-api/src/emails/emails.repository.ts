import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import { newId } from '../common/ids';
import type { EmailRow, NewEmail } from './email';

@Injectable()
export class EmailsRepository {
  constructor(private readonly db: Database) {}

  private get table(): string {
    return this.db.table('emails');
  }

  async insert(e: NewEmail): Promise<EmailRow> {
    const row = await this.db.one<EmailRow>(
      `INSERT INTO ${this.table} (id, project_id, contact_id, kind, source, status, status_reason, to_email, from_email, from_name, reply_to, subject, html, headers, attachments, data, template_id, links, workflow_execution_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::jsonb, $15::jsonb, $16::jsonb, $17, $18::text[], $19::uuid) RETURNING *`,
      [
        e.id ?? newId('eml'),
        e.projectId,
        e.contactId,
        e.kind,
        e.source,
        e.status,
        e.statusReason,
        e.to,
        e.from,
        e.fromName,
        e.replyTo,
        e.subject,
        e.html,
        JSON.stringify(e.headers),
        JSON.stringify(e.attachments),
        e.data ? JSON.stringify(e.data) : null,
        e.templateId ?? null,
        e.links ?? null,
        e.workflowExecutionId ?? null,
      ],
    );
    return row!;
  }

  /** Due queued emails for this sender (FOR UPDATE SKIP LOCKED with a lease: a crashed sender's emails come back). */
  claim(limit: number, leaseSeconds: number): Promise<EmailRow[]> {
    return this.db.claimDue<EmailRow>({
      table: this.table,
      where: `status = 'QUEUED' AND next_attempt_at <= now()`,
      orderBy: 'next_attempt_at ASC',
      limit,
      lease: { column: 'claimed_until', seconds: leaseSeconds },
      set: 'attempts = attempts + 1',
    });
  }

  /**
   * Claims due queued mail under each project's send throttle (see throttle.ts), in one transaction:
   * the due mails of each project with queued mail (a skip scan over `emails_queue_idx`, then up to
   * `limit` per project in priority order: transactional, workflow, campaign; FOR UPDATE SKIP LOCKED),
   * the projects' token buckets (locked, refilled, rate taken from `projects.send_rate` or
   * `defaultRate`), `allocate`'s grants taken from them, and the granted mails leased. Mail without a
   * project (the platform's own) is not throttled. Answers the claimed rows, by priority and due time.
   */
  async claimThrottled(
    limit: number,
    leaseSeconds: number,
    defaultRate: number,
    allocate: (wanted: Map<string, number>, tokens: Map<string, number>, limit: number) => Map<string, number>,
    refill: (tokens: number, rate: number, elapsedSeconds: number) => number,
  ): Promise<EmailRow[]> {
    const platform = await this.db.claimDue<EmailRow>({
      table: this.table,
      where: `status = 'QUEUED' AND project_id IS NULL AND next_attempt_at <= now()`,
      orderBy: 'next_attempt_at ASC',
      limit,
      lease: { column: 'claimed_until', seconds: leaseSeconds },
      set: 'attempts = attempts + 1',
    });
    const room = limit - platform.length;
    if (room <= 0) return platform;
    const claimed = await this.db.transaction(async () => {
      const due = await this.db.rows<{ id: string; project_id: string }>(
        `WITH RECURSIVE p AS (
           (SELECT project_id FROM ${this.table} WHERE status = 'QUEUED' AND project_id IS NOT NULL ORDER BY project_id LIMIT 1)
           UNION ALL
           SELECT (SELECT e.project_id FROM ${this.table} e WHERE e.status = 'QUEUED' AND e.project_id > p.project_id ORDER BY e.project_id LIMIT 1)
             FROM p WHERE p.project_id IS NOT NULL
         )
         SELECT c.id, c.project_id FROM p CROSS JOIN LATERAL (
           SELECT e.id, e.project_id FROM ${this.table} e
            WHERE e.project_id = p.project_id AND e.status = 'QUEUED' AND e.next_attempt_at <= now() AND (e.claimed_until IS NULL OR e.claimed_until <= now())
            ORDER BY e.priority, e.next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED
         ) c
         WHERE p.project_id IS NOT NULL`,
        [room],
      );
      if (!due.length) return [];
      const wanted = new Map<string, number>();
      for (const d of due) wanted.set(d.project_id, (wanted.get(d.project_id) ?? 0) + 1);
      const buckets = await this.db.rows<{ project_id: string; tokens: number; rate: number; elapsed: number; now: Date }>(
        `INSERT INTO ${this.db.table('send_buckets')} AS b (project_id, tokens, rate, refilled_at)
         SELECT p.id, greatest(coalesce(p.send_rate, $2::float8), 1), coalesce(p.send_rate, $2::float8), clock_timestamp()
           FROM ${this.db.table('projects')} p WHERE p.id = ANY($1::uuid[])
         ON CONFLICT (project_id) DO UPDATE SET rate = EXCLUDED.rate
         RETURNING b.project_id, b.tokens, b.rate, extract(epoch FROM clock_timestamp() - b.refilled_at)::float8 AS elapsed, clock_timestamp() AS now`,
        [[...wanted.keys()], defaultRate],
      );
      const tokens = new Map(buckets.map((b) => [b.project_id, refill(b.tokens, b.rate, b.elapsed)]));
      const grants = allocate(wanted, tokens, room);
      await this.db.affected(
        `UPDATE ${this.db.table('send_buckets')} b SET tokens = u.tokens, refilled_at = u.at
           FROM unnest($1::uuid[], $2::float8[], $3::timestamptz[]) AS u(project_id, tokens, at) WHERE b.project_id = u.project_id`,
        [buckets.map((b) => b.project_id), buckets.map((b) => tokens.get(b.project_id)! - (grants.get(b.project_id) ?? 0)), buckets.map((b) => b.now)],
      );
      const taken = new Map(grants);
      const ids = due.filter((d) => {
        const left = taken.get(d.project_id) ?? 0;
        if (left <= 0) return false;
        taken.set(d.project_id, left - 1);
        return true;
      });
      if (!ids.length) return [];
      return this.db.rows<EmailRow>(
        `UPDATE ${this.table} SET claimed_until = now() + make_interval(secs => $2::float8), attempts = attempts + 1 WHERE id = ANY($1::text[]) RETURNING *`,
        [ids.map((d) => d.id), leaseSeconds],
      );
    });
    claimed.sort((a, b) => (a.priority ?? 0) - (b.priority ?? 0) || (a.next_attempt_at?.getTime() ?? 0) - (b.next_attempt_at?.getTime() ?? 0));
    return [...platform, ...claimed];
  }

  /**
   * Marks the mails of a hand-over round SENT in one statement (the send worker's group commit);
   * `atCommit` ends their data on the SMTP connections in the step that writes the COMMIT
   * (Database.commitWith).
   */
  async markSentMany(sent: Array<{ id: string; messageId: string }>, atCommit: () => void): Promise<void> {
    if (!sent.length) return;
    // The same statement appends each project mail's `send` event (idempotency key `send:<email id>`)
    // and queues its count for the rollups.
    const s = this.db.schema;
    await this.db.commitWith(
      `WITH sent AS (
         UPDATE ${this.table} e SET status = 'SENT', message_id = s.message_id, sent_at = now(), status_reason = NULL, claimed_until = NULL, updated_at = now()
           FROM unnest($1::text[], $2::text[], $3::text[]) AS s(id, message_id, event_id) WHERE e.id = s.id
         RETURNING e.id, e.project_id, e.contact_id, e.campaign_id, e.workflow_execution_id, lower(coalesce(substring(e.to_email from '<([^<>]+)>$'), e.to_email)) AS recipient, s.event_id
       ),
       ins AS (
         INSERT INTO ${s}.mail_events (id, project_id, email_id, contact_id, campaign_id, workflow_execution_id, type, recipient, source, idempotency_key)
         SELECT sent.event_id, sent.project_id, sent.id, sent.contact_id, sent.campaign_id, sent.workflow_execution_id, 'send', sent.recipient, 'smtp', 'send:' || sent.id
           FROM sent WHERE sent.project_id IS NOT NULL
         ON CONFLICT (project_id, idempotency_key) DO NOTHING
         RETURNING project_id, type, created_at
       )
       INSERT INTO ${s}.mail_event_rollup_queue (project_id, bucket, type, human)
       SELECT ins.project_id, date_bin('15 minutes', ins.created_at, timestamptz '2000-01-01 00:00:00+00'), ins.type, true FROM ins`,
      [sent.map((x) => x.id), sent.map((x) => x.messageId), sent.map(() => newId('mev'))],
      atCommit,
    );
  }

  /** A SENT mail whose server answer never came (the connection failed after its data was ended). */
  async markAnswerLost(id: string, reason: string): Promise<void> {
    await this.db.affected(`UPDATE ${this.table} SET status = 'SENT', status_reason = $2, claimed_until = NULL, updated_at = now() WHERE id = $1`, [id, reason]);
  }

  /** Back to QUEUED (also from SENT: the server refused at the end of the data), due after the delay. */
  async markRetry(id: string, reason: string, delaySeconds: number): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.table} SET status = 'QUEUED', status_reason = $2, next_attempt_at = now() + make_interval(secs => $3), claimed_until = NULL, updated_at = now() WHERE id = $1`,
      [id, reason, delaySeconds],
    );
  }

  /** FAILED for good; `bounced`: the server refused the mail permanently (5xx), a bounce at send time. */
  async markFailed(id: string, reason: string, bounced = false): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.table} SET status = 'FAILED', status_reason = $2, bounced_at = CASE WHEN $3::boolean THEN now() ELSE bounced_at END, claimed_until = NULL, updated_at = now() WHERE id = $1`,
      [id, reason, bounced],
    );
  }

  /** A claimed mail of a cancelled campaign: CANCELLED, never sent. */
  async markCancelled(id: string, reason: string): Promise<void> {
    await this.db.affected(`UPDATE ${this.table} SET status = 'CANCELLED', status_reason = $2, claimed_until = NULL, updated_at = now() WHERE id = $1`, [id, reason]);
  }

  /**
   * Queues one campaign mail per recipient in one statement; a contact that already has this
   * campaign's mail is skipped (unique (campaign_id, contact_id)): a batch run twice sends nothing
   * twice. `sendAt[i]` is the throttle slot of mail i; `variant`, the A/B test variant of a test
   * mail. Answers how many rows were written.
   */
  async insertCampaignBatch(
    projectId: string,
    campaignId: string,
    templateId: string | null,
    status: 'QUEUED' | 'STORED',
    statusReason: string | null,
    mails: Array<{ id?: string; contactId: string; to: string; from: string; subject: string; html: string; headers: Record<string, string>; sendAt: Date; links?: string[] | null; variant?: number }>,
  ): Promise<number> {
    if (!mails.length) return 0;
    const rows = await this.db.rows(
      `INSERT INTO ${this.table} (id, project_id, contact_id, kind, source, status, status_reason, to_email, from_email, subject, html, headers, campaign_id, template_id, next_attempt_at, links, ab_variant)
       SELECT m.id, $1, m.contact_id, 'MARKETING', 'CAMPAIGN', $3, $4, m.to_email, m.from_email, m.subject, m.html, m.headers::jsonb, $2, $5, m.send_at,
              CASE WHEN m.links IS NULL THEN NULL ELSE ARRAY(SELECT jsonb_array_elements_text(m.links::jsonb)) END, m.ab_variant
         FROM unnest($6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::timestamptz[], $14::text[], $15::smallint[])
              AS m(id, contact_id, to_email, from_email, subject, html, headers, send_at, links, ab_variant)
       ON CONFLICT (campaign_id, contact_id) WHERE campaign_id IS NOT NULL DO NOTHING RETURNING id`,
      [
        projectId,
        campaignId,
        status,
        statusReason,
        templateId,
        mails.map((m) => m.id ?? newId('eml')),
        mails.map((m) => m.contactId),
        mails.map((m) => m.to),
        mails.map((m) => m.from),
        mails.map((m) => m.subject),
        mails.map((m) => m.html),
        mails.map((m) => JSON.stringify(m.headers)),
        mails.map((m) => m.sendAt),
        mails.map((m) => (m.links ? JSON.stringify(m.links) : null)),
        mails.map((m) => m.variant ?? null),
      ],
    );
    return rows.length;
  }

  /**
   * The pacing of a campaign: reserves `count` consecutive slots of 1/rate seconds on the project's
   * clock (shared by every replica through the row; the rate is the project's `send_rate`, else
   * `defaultPerSecond`) and answers the first slot and the rate.
   */
  async reserveSlots(projectId: string, count: number, defaultPerSecond: number): Promise<{ start: Date; perSecond: number }> {
    const row = await this.db.one<{ start: Date; rate: number }>(
      `WITH r AS (SELECT coalesce((SELECT send_rate FROM ${this.db.table('projects')} WHERE id = $1), $3::float8) AS rate)
       INSERT INTO ${this.db.table('send_clock')} AS k (project_id, next_slot) SELECT $1, clock_timestamp() + make_interval(secs => $2::float8 / r.rate) FROM r
       ON CONFLICT (project_id) DO UPDATE SET next_slot = greatest(k.next_slot, clock_timestamp()) + make_interval(secs => $2::float8 / (SELECT rate FROM r))
       RETURNING next_slot - make_interval(secs => $2::float8 / (SELECT rate FROM r)) AS start, (SELECT rate FROM r) AS rate`,
      [projectId, count, defaultPerSecond],
    );
    return { start: row!.start, perSecond: row!.rate };
  }

  /** Campaign mails not yet handed to SMTP become CANCELLED (cancel). */
  async cancelQueuedOfCampaign(campaignId: string, reason: string): Promise<number> {
    return this.db.affected(
      `UPDATE ${this.table} SET status = 'CANCELLED', status_reason = $2, updated_at = now() WHERE campaign_id = $1 AND status IN ('QUEUED', 'STORED')`,
      [campaignId, reason],
    );
  }

  /** Of these contacts, the ones unsubscribed now. */
  async unsubscribedContacts(ids: string[]): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const rows = await this.db.rows<{ id: string }>(`SELECT id FROM ${this.db.table('contacts')} WHERE id = ANY($1::text[]) AND NOT subscribed`, [ids]);
    return new Set(rows.map((r) => r.id));
  }

  async markSuppressed(id: string, reason: string): Promise<void> {
    await this.db.affected(`UPDATE ${this.table} SET status = 'SUPPRESSED', status_reason = $2, claimed_until = NULL, updated_at = now() WHERE id = $1`, [id, reason]);
  }

  /** Of these campaigns, the cancelled ones. */
  async cancelledCampaigns(ids: string[]): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const rows = await this.db.rows<{ id: string }>(`SELECT id FROM ${this.db.table('campaigns')} WHERE id = ANY($1::uuid[]) AND status = 'CANCELLED'`, [ids]);
    return new Set(rows.map((r) => r.id));
  }

  /** Stores the ids the outgoing SMTP server gave the mails in its acceptance (`250 Ok <id>`). */
  async setProviderMessageIds(rows: Array<{ id: string; providerMessageId: string }>): Promise<void> {
    if (!rows.length) return;
    await this.db.affected(
      `UPDATE ${this.table} e SET provider_message_id = r.pid FROM unnest($1::text[], $2::text[]) AS r(id, pid) WHERE e.id = r.id`,
      [rows.map((r) => r.id), rows.map((r) => r.providerMessageId)],
    );
  }

  /** What the feedback loop needs of sent mails: project, recipient, sender. */
  findSent(ids: string[]): Promise<Array<{ id: string; project_id: string | null; to_email: string; from_email: string; message_id: string | null }>> {
    if (!ids.length) return Promise.resolve([]);
    return this.db.rows(`SELECT id, project_id, to_email, from_email, message_id FROM ${this.table} WHERE id = ANY($1::text[])`, [ids]);
  }

  /** The mail the outgoing SMTP server knows by this id (the newest, should a provider reuse ids). */
  async findByProviderMessageId(providerMessageId: string): Promise<string | null> {
    const row = await this.db.one<{ id: string }>(
      `SELECT id FROM ${this.table} WHERE provider_message_id = $1 ORDER BY created_at DESC LIMIT 1`,
      [providerMessageId],
    );
    return row?.id ?? null;
  }
}
