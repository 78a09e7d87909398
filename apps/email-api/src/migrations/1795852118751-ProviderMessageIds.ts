import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `emails.provider_message_id`: the id the outgoing SMTP server gave the mail in its acceptance
 * (`250 Ok <id>` from Amazon SES's SMTP interface, `250 2.0.0 OK queued as <id>` from Postfix);
 * provider event webhooks (SES through SNS) name the mail by it.
 */
export class ProviderMessageIds1795852118751 implements MigrationInterface {
  name = 'ProviderMessageIds1795852118751';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`ALTER TABLE ${s}.emails ADD COLUMN provider_message_id text`);
    await q.query(`CREATE INDEX emails_provider_message_id_idx ON ${s}.emails (provider_message_id) WHERE provider_message_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`DROP INDEX ${s}.emails_provider_message_id_idx`);
    await q.query(`ALTER TABLE ${s}.emails DROP COLUMN provider_message_id`);
  }
}
