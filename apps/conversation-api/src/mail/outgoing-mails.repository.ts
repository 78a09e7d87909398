import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';

export type MailStatus = 'queued' | 'sent' | 'unsent' | 'failed';

export interface QueuedMail {
  id: string;
  kind: string;
  to: string;
  subject: string;
  body: string;
  /** Attempts so far, this one included. */
  attempt: number;
}

interface Row {
  id: string;
  kind: string;
  to_email: string;
  subject: string;
  body: string;
  attempts: number;
}

@Injectable()
export class OutgoingMailsRepository {
  constructor(private readonly db: Database) {}

  private get t(): string {
    return this.db.table('outgoing_mails');
  }

  /** Stores a mail; `queued` ones are due at once for the mail worker. */
  async insert(m: { kind: string; to: string; subject: string; body: string; status: MailStatus; error?: string | null }): Promise<string> {
    const row = await this.db.one<{ id: string }>(
      `INSERT INTO ${this.t} (kind, to_email, subject, body, status, error, next_attempt_at) VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $5 = 'queued' THEN now() END) RETURNING id`,
      [m.kind, m.to, m.subject, m.body, m.status, m.error ?? null],
    );
    return row!.id;
  }

  /** Claims due queued mails (SKIP LOCKED, a lease: a crashed sender's mails are taken again after it). */
  async claimDue(limit: number, leaseSeconds: number): Promise<QueuedMail[]> {
    const rows = await this.db.claimDue<Row>({
      table: this.t,
      where: `status = 'queued' AND next_attempt_at <= now()`,
      orderBy: 'next_attempt_at',
      limit,
      lease: { column: 'lease_until', seconds: leaseSeconds },
      set: 'attempts = attempts + 1',
    });
    return rows.map((r) => ({ id: r.id, kind: r.kind, to: r.to_email, subject: r.subject, body: r.body, attempt: r.attempts }));
  }

  async markSent(id: string): Promise<void> {
    await this.db.affected(`UPDATE ${this.t} SET status = 'sent', sent_at = now(), error = NULL, next_attempt_at = NULL, lease_until = NULL WHERE id = $1`, [id]);
  }

  /** Another attempt after `delayMs`, or (`delayMs` null) `failed` for good. */
  async markAttemptFailed(id: string, error: string, delayMs: number | null): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.t} SET error = $2, lease_until = NULL,
              status = CASE WHEN $3::double precision IS NULL THEN 'failed' ELSE status END,
              next_attempt_at = CASE WHEN $3::double precision IS NULL THEN NULL ELSE now() + make_interval(secs => $3::double precision / 1000) END
        WHERE id = $1`,
      [id, error.slice(0, 1000), delayMs],
    );
  }
}
