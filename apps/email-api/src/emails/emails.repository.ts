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
      `INSERT INTO ${this.table} (id, project_id, contact_id, kind, source, status, status_reason, to_email, from_email, from_name, reply_to, subject, html, headers, attachments, data)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::jsonb, $15::jsonb, $16::jsonb) RETURNING *`,
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

  async markSent(id: string, messageId: string | null): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.table} SET status = 'SENT', message_id = $2, sent_at = now(), status_reason = NULL, claimed_until = NULL, updated_at = now() WHERE id = $1`,
      [id, messageId],
    );
  }

  async markRetry(id: string, reason: string, delaySeconds: number): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.table} SET status_reason = $2, next_attempt_at = now() + make_interval(secs => $3), claimed_until = NULL, updated_at = now() WHERE id = $1`,
      [id, reason, delaySeconds],
    );
  }

  async markFailed(id: string, reason: string): Promise<void> {
    await this.db.affected(`UPDATE ${this.table} SET status = 'FAILED', status_reason = $2, claimed_until = NULL, updated_at = now() WHERE id = $1`, [id, reason]);
  }
}
