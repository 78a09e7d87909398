import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The per-project send throttle for every kind of mail:
 * - `emails.priority` (generated from `source`): transactional and platform mail 1, workflow mail 5,
 *   campaign mail 10; the send worker takes due mail of a project in this order;
 * - `projects.send_rate`: the project's mails per second (null: the operator's EMAIL_SEND_RATE);
 * - `send_buckets`: one token bucket per project (tokens, rate, last refill), shared by every
 *   replica through the row lock.
 */
export class SendThrottle1795853207750 implements MigrationInterface {
  name = 'SendThrottle1795853207750';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`ALTER TABLE ${s}.emails ADD COLUMN priority smallint GENERATED ALWAYS AS (CASE source WHEN 'CAMPAIGN' THEN 10 WHEN 'WORKFLOW' THEN 5 ELSE 1 END) STORED`);
    await q.query(`CREATE INDEX emails_queue_idx ON ${s}.emails (project_id, priority, next_attempt_at) WHERE status = 'QUEUED'`);
    await q.query(`ALTER TABLE ${s}.projects ADD COLUMN send_rate double precision CHECK (send_rate > 0)`);
    await q.query(`
      CREATE TABLE ${s}.send_buckets (
        project_id uuid PRIMARY KEY REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        tokens double precision NOT NULL,
        rate double precision NOT NULL,
        refilled_at timestamptz NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`DROP TABLE ${s}.send_buckets`);
    await q.query(`ALTER TABLE ${s}.projects DROP COLUMN send_rate`);
    await q.query(`DROP INDEX ${s}.emails_queue_idx`);
    await q.query(`ALTER TABLE ${s}.emails DROP COLUMN priority`);
  }
}
