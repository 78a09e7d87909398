import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook items addressed to another phone number than the channel's were dropped without a trace
 * (Chatwoot #11987's symptom): each channel now counts them and keeps the last one's number and time.
 */
export class CountIgnoredWebhookItems1795600000300 implements MigrationInterface {
  name = 'CountIgnoredWebhookItems1795600000300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE ${schemaOf(q)}.channels
        ADD COLUMN ignored_items bigint NOT NULL DEFAULT 0,
        ADD COLUMN last_ignored_at timestamptz,
        ADD COLUMN last_ignored_phone_number_id text
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE ${schemaOf(q)}.channels DROP COLUMN ignored_items, DROP COLUMN last_ignored_at, DROP COLUMN last_ignored_phone_number_id`);
  }
}
