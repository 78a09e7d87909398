import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Double opt-in:
 * - `opt_in_settings`: per project, whether new signups must confirm and the template of the
 *   confirmation mail (a deleted template leaves null: the built-in mail is sent instead);
 * - `contacts.opt_in` (`pending` | `confirmed` | null), `confirmed_at`, `confirmation_sent_at` (the
 *   last confirmation mail asked for: at most one a day, decided in the upsert's row lock) and
 *   `confirmation_due_at` (a mail the confirmation worker still has to queue; partial index).
 */
export class DoubleOptIn1795864000000 implements MigrationInterface {
  name = 'DoubleOptIn1795864000000';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      CREATE TABLE ${s}.opt_in_settings (
        project_id uuid PRIMARY KEY REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        enabled boolean NOT NULL DEFAULT false,
        template_id uuid REFERENCES ${s}.templates (id) ON DELETE SET NULL,
        updated_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
      )`);
    await q.query(`
      ALTER TABLE ${s}.contacts
        ADD COLUMN opt_in text CHECK (opt_in IN ('pending', 'confirmed')),
        ADD COLUMN confirmed_at timestamptz,
        ADD COLUMN confirmation_sent_at timestamptz,
        ADD COLUMN confirmation_due_at timestamptz`);
    await q.query(`CREATE INDEX contacts_confirmation_due_idx ON ${s}.contacts (confirmation_due_at) WHERE confirmation_due_at IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`DROP INDEX ${s}.contacts_confirmation_due_idx`);
    await q.query(`ALTER TABLE ${s}.contacts DROP COLUMN opt_in, DROP COLUMN confirmed_at, DROP COLUMN confirmation_sent_at, DROP COLUMN confirmation_due_at`);
    await q.query(`DROP TABLE ${s}.opt_in_settings`);
  }
}
