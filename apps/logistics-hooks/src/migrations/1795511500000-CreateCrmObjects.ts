import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The CRM data hub: raw objects pushed by a CRM, one row per kind and id. */
export class CreateCrmObjects1795511500000 implements MigrationInterface {
  name = 'CreateCrmObjects1795511500000';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      CREATE TABLE ${s}.crm_objects (
        kind text NOT NULL CHECK (kind IN ('accounts', 'contacts', 'deals', 'leads', 'tasks')),
        id text NOT NULL,
        data jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (kind, id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE ${schemaOf(q)}.crm_objects`);
  }
}
