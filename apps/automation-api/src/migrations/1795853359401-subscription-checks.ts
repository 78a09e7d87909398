import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@platform/database';

/**
 * Webhook subscription health: the periodic check's row per account — its lease (one replica checks an
 * account per interval), when it last looked, what was subscribed, its problem (shown in GET /status
 * `webhook_problem`) and when it last had to subscribe the app again.
 */
export class SubscriptionChecks1795853359401 implements MigrationInterface {
  name = 'SubscriptionChecks1795853359401';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      CREATE TABLE ${s}.subscription_checks (
        account_id int PRIMARY KEY REFERENCES ${s}.accounts(id) ON DELETE CASCADE,
        lease_until timestamptz,
        checked_at timestamptz,
        subscribed_fields text[] NOT NULL DEFAULT '{}',
        problem text,
        resubscribed_at timestamptz,
        resubscriptions int NOT NULL DEFAULT 0
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE ${schemaOf(q)}.subscription_checks`);
  }
}
