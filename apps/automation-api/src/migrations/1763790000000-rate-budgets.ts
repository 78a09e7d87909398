import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@platform/database';

/**
 * Rate budgets shared by every replica: one counter per account, kind (`calls`, `private_replies`)
 * and hourly window, taken with one atomic `INSERT … ON CONFLICT DO UPDATE … WHERE used < limit`.
 * Plus `runs.text_fallback`: the opening button template was refused and sent as text, so a text
 * message of the person counts as the tap.
 */
export class RateBudgets1763790000000 implements MigrationInterface {
  name = 'RateBudgets1763790000000';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      CREATE TABLE ${s}.rate_budgets (
        account_id int NOT NULL REFERENCES ${s}.accounts(id) ON DELETE CASCADE,
        kind text NOT NULL,
        window_start timestamptz NOT NULL,
        used int NOT NULL CHECK (used >= 0),
        PRIMARY KEY (account_id, kind, window_start)
      )`);
    await q.query(`ALTER TABLE ${s}.runs ADD COLUMN text_fallback boolean NOT NULL DEFAULT false`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`ALTER TABLE ${s}.runs DROP COLUMN text_fallback`);
    await q.query(`DROP TABLE ${s}.rate_budgets`);
  }
}
