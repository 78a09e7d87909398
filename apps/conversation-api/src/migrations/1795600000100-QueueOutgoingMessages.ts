import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Agent replies are sent by a delivery worker, not inside the request: a pending outgoing message is
 * due at `next_attempt_at`, claimed under `delivery_lease` (another replica takes it again when the
 * lease runs out: the worker crashed), and counts its attempts; `outbound` holds what a media or
 * template reply sends (a text reply sends `content`). Messages that part 1 left pending
 * (a crash during the request) are marked failed, so that an agent sees them and can retry.
 */
export class QueueOutgoingMessages1795600000100 implements MigrationInterface {
  name = 'QueueOutgoingMessages1795600000100';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      ALTER TABLE ${s}.messages
        ADD COLUMN delivery_attempts integer NOT NULL DEFAULT 0,
        ADD COLUMN next_attempt_at timestamptz,
        ADD COLUMN delivery_lease timestamptz,
        ADD COLUMN outbound jsonb;
      CREATE INDEX messages_delivery_due_idx ON ${s}.messages (next_attempt_at) WHERE status = 'pending' AND next_attempt_at IS NOT NULL;
      UPDATE ${s}.messages SET status = 'failed', error = 'Interrupted before it was sent; send it again with the retry route'
       WHERE status = 'pending' AND message_type = 'outgoing' AND NOT private;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      DROP INDEX IF EXISTS ${s}.messages_delivery_due_idx;
      ALTER TABLE ${s}.messages DROP COLUMN delivery_attempts, DROP COLUMN next_attempt_at, DROP COLUMN delivery_lease, DROP COLUMN outbound;
    `);
  }
}
