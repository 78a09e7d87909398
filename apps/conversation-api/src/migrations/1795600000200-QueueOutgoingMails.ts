import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The service's own mails (password reset) are queued in the request's transaction and sent by the
 * mail worker, so that a request's duration no longer tells whether an email belongs to a user.
 */
export class QueueOutgoingMails1795600000200 implements MigrationInterface {
  name = 'QueueOutgoingMails1795600000200';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      ALTER TABLE ${s}.outgoing_mails DROP CONSTRAINT IF EXISTS outgoing_mails_status_check;
      ALTER TABLE ${s}.outgoing_mails
        ADD CONSTRAINT outgoing_mails_status_check CHECK (status IN ('queued', 'sent', 'unsent', 'failed')),
        ADD COLUMN attempts integer NOT NULL DEFAULT 0,
        ADD COLUMN next_attempt_at timestamptz,
        ADD COLUMN lease_until timestamptz,
        ADD COLUMN sent_at timestamptz;
      CREATE INDEX outgoing_mails_due_idx ON ${s}.outgoing_mails (next_attempt_at) WHERE status = 'queued';
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      DROP INDEX IF EXISTS ${s}.outgoing_mails_due_idx;
      UPDATE ${s}.outgoing_mails SET status = 'unsent' WHERE status = 'queued';
      ALTER TABLE ${s}.outgoing_mails DROP CONSTRAINT outgoing_mails_status_check,
        ADD CONSTRAINT outgoing_mails_status_check CHECK (status IN ('sent', 'unsent', 'failed')),
        DROP COLUMN attempts, DROP COLUMN next_attempt_at, DROP COLUMN lease_until, DROP COLUMN sent_at;
    `);
  }
}
