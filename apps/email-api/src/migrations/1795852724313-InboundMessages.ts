import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `inbound_messages`: mail received for a project's verified domains by the inbound SMTP receiver:
 * envelope, headers, text, HTML, attachment metadata (the files and the raw message are under
 * DATA_DIR), the SPF, DKIM and DMARC results, and the sent mail it replies to (`email_id`, from
 * In-Reply-To or References). `(project_id, message_key)` is unique: a message delivered again
 * (the sender's retry after a lost answer) is stored once.
 */
export class InboundMessages1795852724313 implements MigrationInterface {
  name = 'InboundMessages1795852724313';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      CREATE TABLE ${s}.inbound_messages (
        id text PRIMARY KEY,
        project_id uuid NOT NULL REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        message_key text NOT NULL,
        message_id text,
        in_reply_to text,
        email_id text,
        contact_id text,
        mail_from text NOT NULL,
        rcpt_to text[] NOT NULL,
        from_email text,
        from_name text,
        to_emails text[] NOT NULL DEFAULT '{}',
        subject text,
        text_body text,
        html_body text,
        headers jsonb NOT NULL,
        attachments jsonb NOT NULL DEFAULT '[]',
        auth jsonb NOT NULL,
        size integer NOT NULL,
        remote_address text,
        helo text,
        raw_path text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
        CONSTRAINT inbound_messages_key UNIQUE (project_id, message_key)
      )`);
    await q.query(`CREATE INDEX inbound_messages_page_idx ON ${s}.inbound_messages (project_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX inbound_messages_email_idx ON ${s}.inbound_messages (email_id) WHERE email_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE ${schemaOf(q)}.inbound_messages`);
  }
}
