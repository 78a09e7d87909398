import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The carriers' tracking answers, shared by the replicas: one row per carrier, kind and reference. */
export class CreateOceanTrackingCache1795511400000 implements MigrationInterface {
  name = 'CreateOceanTrackingCache1795511400000';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      CREATE TABLE ${s}.ocean_tracking_cache (
        carrier text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('container', 'bill_of_lading', 'booking')),
        reference text NOT NULL,
        result jsonb NOT NULL,
        fetched_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (carrier, kind, reference)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE ${schemaOf(q)}.ocean_tracking_cache`);
  }
}
