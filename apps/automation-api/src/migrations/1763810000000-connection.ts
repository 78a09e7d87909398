import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@platform/database';

/**
 * A connection that stays alive: what the token scheduler learns and keeps on the account — the
 * digest of the configured IG_ACCESS_TOKEN the stored token descends from (a restart never writes an
 * older configured token over a refreshed one), the token's issue time (the platform refreshes
 * tokens at least 24 hours old) and the failed refresh attempts since the last success; and the
 * people behind the comments: `contacts.opted_out_at` (STOP ends all automation for that person).
 */
export class Connection1763810000000 implements MigrationInterface {
  name = 'Connection1763810000000';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      ALTER TABLE ${s}.accounts
        ADD COLUMN configured_token_sha256 text,
        ADD COLUMN token_issued_at timestamptz,
        ADD COLUMN token_refresh_attempts int NOT NULL DEFAULT 0`);
    await q.query(`ALTER TABLE ${s}.contacts ADD COLUMN opted_out_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`ALTER TABLE ${s}.contacts DROP COLUMN opted_out_at`);
    await q.query(`ALTER TABLE ${s}.accounts DROP COLUMN configured_token_sha256, DROP COLUMN token_issued_at, DROP COLUMN token_refresh_attempts`);
  }
}
