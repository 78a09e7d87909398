import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sessions of Sablier's API (`session_duration`), shared by every replica: the last call that asked
 * for one (`session_touched`) and until when it keeps the workload (`session_until`). The idle rule
 * follows the latest use: a session newer than the last routed request keeps the workload until its
 * end; otherwise the service's idle timeout since that request applies.
 */
export class AddSessions1795900000000 implements MigrationInterface {
  name = 'AddSessions1795900000000';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`ALTER TABLE ${s}.workloads ADD COLUMN session_touched timestamptz, ADD COLUMN session_until timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`ALTER TABLE ${s}.workloads DROP COLUMN session_until, DROP COLUMN session_touched`);
  }
}
