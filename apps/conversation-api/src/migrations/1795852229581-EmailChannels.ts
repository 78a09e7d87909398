import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Email channels (inboxes): the address and the servers (`email_settings`: IMAP and SMTP host, port,
 * TLS, user, mailbox; the passwords are sealed in `credentials` like the WhatsApp tokens), the IMAP
 * cursor (UIDVALIDITY and the last UID taken) and the poll's schedule and lease (one replica polls a
 * mailbox at a time), the last poll's outcome, and counters of mails that open no conversation
 * (automatic replies, the channel's own mail). Messages keep the email's headers in
 * `content_attributes` (subject, addresses, Message-ID, In-Reply-To, References).
 */
export class EmailChannels1795852229581 implements MigrationInterface {
  name = 'EmailChannels1795852229581';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      ALTER TABLE ${s}.channels DROP CONSTRAINT IF EXISTS channels_type_check;
      ALTER TABLE ${s}.channels ADD CONSTRAINT channels_type_check CHECK (type IN ('whatsapp', 'email'));
      ALTER TABLE ${s}.channels ALTER COLUMN phone_number_id DROP NOT NULL;
      ALTER TABLE ${s}.channels
        ADD COLUMN email_address text,
        ADD COLUMN email_settings jsonb,
        ADD COLUMN imap_uidvalidity bigint,
        ADD COLUMN imap_last_uid bigint,
        ADD COLUMN imap_next_poll_at timestamptz,
        ADD COLUMN imap_lease_until timestamptz,
        ADD COLUMN imap_last_polled_at timestamptz,
        ADD COLUMN imap_last_error text,
        ADD COLUMN mails_received bigint NOT NULL DEFAULT 0,
        ADD COLUMN auto_replies_skipped bigint NOT NULL DEFAULT 0,
        ADD COLUMN own_mails_skipped bigint NOT NULL DEFAULT 0,
        ADD CONSTRAINT channels_email_check CHECK (type <> 'email' OR (email_address IS NOT NULL AND email_settings IS NOT NULL)),
        ADD CONSTRAINT channels_whatsapp_check CHECK (type <> 'whatsapp' OR phone_number_id IS NOT NULL);
      CREATE INDEX channels_imap_due_idx ON ${s}.channels (imap_next_poll_at) WHERE type = 'email';
      ALTER TABLE ${s}.messages ADD COLUMN content_attributes jsonb NOT NULL DEFAULT '{}';
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      ALTER TABLE ${s}.messages DROP COLUMN content_attributes;
      DROP INDEX IF EXISTS ${s}.channels_imap_due_idx;
      DELETE FROM ${s}.channels WHERE type = 'email';
      ALTER TABLE ${s}.channels DROP CONSTRAINT channels_email_check, DROP CONSTRAINT channels_whatsapp_check,
        DROP COLUMN email_address, DROP COLUMN email_settings, DROP COLUMN imap_uidvalidity, DROP COLUMN imap_last_uid,
        DROP COLUMN imap_next_poll_at, DROP COLUMN imap_lease_until, DROP COLUMN imap_last_polled_at, DROP COLUMN imap_last_error,
        DROP COLUMN mails_received, DROP COLUMN auto_replies_skipped, DROP COLUMN own_mails_skipped;
      ALTER TABLE ${s}.channels ALTER COLUMN phone_number_id SET NOT NULL;
      ALTER TABLE ${s}.channels DROP CONSTRAINT IF EXISTS channels_type_check;
      ALTER TABLE ${s}.channels ADD CONSTRAINT channels_type_check CHECK (type IN ('whatsapp'));
    `);
  }
}
