import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A/B tests of campaigns:
 * - `campaigns.ab_test`: the test as the API took it (variants, testShare, metric, waitMinutes;
 *   null: no test); `ab_phase` testing → waiting → winner while SENDING; the drawing of the test
 *   group (`ab_audience`, `ab_test_size`, `ab_seen`, `ab_selected`, moved with each fan-out batch);
 *   `ab_due_at` (when the winner is picked), `ab_winner` (its index) and `ab_decision` (how);
 * - `emails.ab_variant`: the variant (0–3) a test mail carries; null on the rest's mails (they
 *   carry the winner) and on every other mail.
 */
export class CampaignAbTests1795863000000 implements MigrationInterface {
  name = 'CampaignAbTests1795863000000';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      ALTER TABLE ${s}.campaigns
        ADD COLUMN ab_test jsonb,
        ADD COLUMN ab_phase text CHECK (ab_phase IN ('testing', 'waiting', 'winner')),
        ADD COLUMN ab_audience integer,
        ADD COLUMN ab_test_size integer,
        ADD COLUMN ab_seen integer NOT NULL DEFAULT 0,
        ADD COLUMN ab_selected integer NOT NULL DEFAULT 0,
        ADD COLUMN ab_due_at timestamptz,
        ADD COLUMN ab_winner smallint CHECK (ab_winner BETWEEN 0 AND 3),
        ADD COLUMN ab_decision jsonb`);
    await q.query(`CREATE INDEX campaigns_ab_due_idx ON ${s}.campaigns (ab_due_at) WHERE ab_phase = 'waiting'`);
    await q.query(`ALTER TABLE ${s}.emails ADD COLUMN ab_variant smallint CHECK (ab_variant BETWEEN 0 AND 3)`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`ALTER TABLE ${s}.emails DROP COLUMN ab_variant`);
    await q.query(`DROP INDEX ${s}.campaigns_ab_due_idx`);
    await q.query(`
      ALTER TABLE ${s}.campaigns
        DROP COLUMN ab_test, DROP COLUMN ab_phase, DROP COLUMN ab_audience, DROP COLUMN ab_test_size, DROP COLUMN ab_seen,
        DROP COLUMN ab_selected, DROP COLUMN ab_due_at, DROP COLUMN ab_winner, DROP COLUMN ab_decision`);
  }
}
