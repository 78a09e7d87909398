import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tasks: the email's identity (`dedupe_key`: its Message-ID, or a hash of its content) so a retried
 * webhook finds the task it already made, and the background refinement by the model (`refinement`
 * pending → done | failed, attempts, when it is due, the lease of the replica working on it).
 */
export class TaskDedupeAndRefinement1795511300000 implements MigrationInterface {
  name = 'TaskDedupeAndRefinement1795511300000';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      ALTER TABLE ${s}.tasks
        ADD COLUMN message_id text,
        ADD COLUMN dedupe_key text,
        ADD COLUMN refinement text CHECK (refinement IN ('pending', 'done', 'failed')),
        ADD COLUMN refine_attempts integer NOT NULL DEFAULT 0,
        ADD COLUMN refine_after timestamptz,
        ADD COLUMN refine_lease timestamptz`);
    await q.query(`CREATE UNIQUE INDEX tasks_dedupe_key_idx ON ${s}.tasks (dedupe_key)`);
    await q.query(`CREATE INDEX tasks_refine_due_idx ON ${s}.tasks (refine_after) WHERE refinement = 'pending'`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`DROP INDEX ${s}.tasks_refine_due_idx`);
    await q.query(`DROP INDEX ${s}.tasks_dedupe_key_idx`);
    await q.query(`ALTER TABLE ${s}.tasks DROP COLUMN message_id, DROP COLUMN dedupe_key, DROP COLUMN refinement, DROP COLUMN refine_attempts, DROP COLUMN refine_after, DROP COLUMN refine_lease`);
  }
}
