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
      `INSERT INTO ${this.table} (id, project_id, contact_id, kind, source, status, status_reason, to_email, from_email, from_name, reply_to, subject, html, headers, attachments, data, template_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::jsonb, $15::jsonb, $16::jsonb, $17) RETURNING *`,
      [
        newId('eml'),
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
   * Marks the mails of a hand-over round SENT in one statement (the send worker's group commit);
   * `atCommit` ends their data on the SMTP connections in the step that writes the COMMIT
   * (Database.commitWith).
   */
  async markSentMany(sent: Array<{ id: string; messageId: string }>, atCommit: () => void): Promise<void> {
    if (!sent.length) return;
    await this.db.commitWith(
      `UPDATE ${this.table} e SET status = 'SENT', message_id = s.message_id, sent_at = now(), status_reason = NULL, claimed_until = NULL, updated_at = now()
         FROM unnest($1::text[], $2::text[]) AS s(id, message_id) WHERE e.id = s.id`,
      [sent.map((x) => x.id), sent.map((x) => x.messageId)],
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
   * twice. `sendAt[i]` is the throttle slot of mail i. Answers how many rows were written.
   */
  async insertCampaignBatch(
    projectId: string,
    campaignId: string,
    templateId: string | null,
    status: 'QUEUED' | 'STORED',
    statusReason: string | null,
    mails: Array<{ contactId: string; to: string; from: string; subject: string; html: string; headers: Record<string, string>; sendAt: Date }>,
  ): Promise<number> {
    if (!mails.length) return 0;
    const rows = await this.db.rows(
      `INSERT INTO ${this.table} (id, project_id, contact_id, kind, source, status, status_reason, to_email, from_email, subject, html, headers, campaign_id, template_id, next_attempt_at)
       SELECT m.id, $1, m.contact_id, 'MARKETING', 'CAMPAIGN', $3, $4, m.to_email, m.from_email, m.subject, m.html, m.headers::jsonb, $2, $5, m.send_at
         FROM unnest($6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::timestamptz[])
              AS m(id, contact_id, to_email, from_email, subject, html, headers, send_at)
       ON CONFLICT (campaign_id, contact_id) WHERE campaign_id IS NOT NULL DO NOTHING RETURNING id`,
      [
        projectId,
        campaignId,
        status,
        statusReason,
        templateId,
        mails.map(() => newId('eml')),
        mails.map((m) => m.contactId),
        mails.map((m) => m.to),
        mails.map((m) => m.from),
        mails.map((m) => m.subject),
        mails.map((m) => m.html),
        mails.map((m) => JSON.stringify(m.headers)),
        mails.map((m) => m.sendAt),
      ],
    );
    return rows.length;
  }

  /**
   * The project's send throttle: reserves `count` consecutive slots of 1/rate seconds on the
   * project's clock (shared by every replica through the row) and answers the first slot.
   */
  async reserveSlots(projectId: string, count: number, perSecond: number): Promise<Date> {
    const row = await this.db.one<{ start: Date }>(
      `INSERT INTO ${this.db.table('send_clock')} AS k (project_id, next_slot) VALUES ($1, clock_timestamp() + make_interval(secs => $2::float8 / $3::float8))
       ON CONFLICT (project_id) DO UPDATE SET next_slot = greatest(k.next_slot, clock_timestamp()) + make_interval(secs => $2::float8 / $3::float8)
       RETURNING next_slot - make_interval(secs => $2::float8 / $3::float8) AS start`,
      [projectId, count, perSecond],
    );
    return row!.start;
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
}
