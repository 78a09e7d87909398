import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@platform/database';

/**
 * Uncertain sends and the people behind the comments: a send whose request died mid-flight is
 * `uncertain` until the platform shows whether it arrived (`run_sends.status`); the person read the
 * opening DM (`runs.read_at`) and got the link by the read-but-not-tapped fallback
 * (`runs.read_fallback_at`); a person of the account answered by hand, pausing automation for the
 * conversation (`contacts.paused_until`, `runs.taken_over_at`); private replies paced per account,
 * shared by every replica (`send_pacing.next_at`: the earliest time of the account's next private reply).
 */
export class PeopleAndSends1795852030876 implements MigrationInterface {
  name = 'PeopleAndSends1795852030876';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`ALTER TABLE ${s}.run_sends DROP CONSTRAINT IF EXISTS run_sends_status_check`);
    await q.query(`ALTER TABLE ${s}.run_sends ADD CONSTRAINT run_sends_status_check CHECK (status IN ('intent','uncertain','done','failed'))`);
    await q.query(`CREATE INDEX run_sends_platform_id_idx ON ${s}.run_sends (account_id, platform_id) WHERE platform_id IS NOT NULL`);
    await q.query(`ALTER TABLE ${s}.runs ADD COLUMN read_at timestamptz, ADD COLUMN read_fallback_at timestamptz, ADD COLUMN taken_over_at timestamptz`);
    await q.query(`ALTER TABLE ${s}.contacts ADD COLUMN paused_until timestamptz`);
    await q.query(`
      CREATE TABLE ${s}.send_pacing (
        account_id int PRIMARY KEY REFERENCES ${s}.accounts(id) ON DELETE CASCADE,
        next_at timestamptz NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`DROP TABLE ${s}.send_pacing`);
    await q.query(`ALTER TABLE ${s}.contacts DROP COLUMN paused_until`);
    await q.query(`ALTER TABLE ${s}.runs DROP COLUMN read_at, DROP COLUMN read_fallback_at, DROP COLUMN taken_over_at`);
    await q.query(`DROP INDEX ${s}.run_sends_platform_id_idx`);
    await q.query(`UPDATE ${s}.run_sends SET status = 'intent' WHERE status = 'uncertain'`);
    await q.query(`ALTER TABLE ${s}.run_sends DROP CONSTRAINT run_sends_status_check`);
    await q.query(`ALTER TABLE ${s}.run_sends ADD CONSTRAINT run_sends_status_check CHECK (status IN ('intent','done','failed'))`);
  }
}
