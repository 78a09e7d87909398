import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';

export type MailStatus = 'sent' | 'unsent' | 'failed';

@Injectable()
export class OutgoingMailsRepository {
  constructor(private readonly db: Database) {}

  async insert(m: { kind: string; to: string; subject: string; body: string; status: MailStatus; error?: string | null }): Promise<string> {
    const row = await this.db.one<{ id: string }>(
      `INSERT INTO ${this.db.table('outgoing_mails')} (kind, to_email, subject, body, status, error) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
      [m.kind, m.to, m.subject, m.body, m.status, m.error ?? null],
    );
    return row!.id;
  }
}
