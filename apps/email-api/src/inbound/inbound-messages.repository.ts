import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { Keyset } from '../common/pagination';
import type { InboundMessageRow, NewInboundMessage } from './inbound-message';

@Injectable()
export class InboundMessagesRepository {
  constructor(private readonly db: Database) {}

  private get table(): string {
    return this.db.table('inbound_messages');
  }

  /** Stores the message; null when the project has it already (the same message key). */
  insert(m: NewInboundMessage): Promise<InboundMessageRow | null> {
    return this.db.one<InboundMessageRow>(
      `INSERT INTO ${this.table} (id, project_id, message_key, message_id, in_reply_to, email_id, mail_from, rcpt_to, from_email, from_name, to_emails, subject, text_body, html_body, headers, attachments, auth, size, remote_address, helo, raw_path)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15::jsonb, $16::jsonb, $17::jsonb, $18, $19, $20, $21)
       ON CONFLICT (project_id, message_key) DO NOTHING RETURNING *`,
      [
        m.id,
        m.projectId,
        m.messageKey,
        m.messageId,
        m.inReplyTo,
        m.emailId,
        m.mailFrom,
        m.rcptTo,
        m.fromEmail,
        m.fromName,
        m.toEmails,
        m.subject,
        m.text,
        m.html,
        JSON.stringify(m.headers),
        JSON.stringify(m.attachments),
        JSON.stringify(m.auth),
        m.size,
        m.remoteAddress,
        m.helo,
        m.rawPath,
      ],
    );
  }

  findById(projectId: string, id: string): Promise<InboundMessageRow | null> {
    return this.db.one<InboundMessageRow>(`SELECT * FROM ${this.table} WHERE project_id = $1 AND id = $2`, [projectId, id]);
  }

  /** A page, newest first, after the keyset; `emailId` keeps the replies to one sent mail. */
  page(projectId: string, after: Keyset | null, limit: number, emailId?: string): Promise<InboundMessageRow[]> {
    return this.db.rows<InboundMessageRow>(
      `SELECT * FROM ${this.table}
        WHERE project_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) < ($2, $3)) AND ($5::text IS NULL OR email_id = $5)
        ORDER BY created_at DESC, id DESC LIMIT $4`,
      [projectId, after?.createdAt ?? null, after?.id ?? '', limit, emailId ?? null],
    );
  }

  async count(projectId: string, emailId?: string): Promise<number> {
    const row = await this.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.table} WHERE project_id = $1 AND ($2::text IS NULL OR email_id = $2)`, [projectId, emailId ?? null]);
    return row?.n ?? 0;
  }
}
