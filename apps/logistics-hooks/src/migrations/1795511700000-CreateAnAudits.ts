import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Arrival-notice audits: outcome, score and checks of each. */
export class CreateAnAudits1795511700000 implements MigrationInterface {
  name = 'CreateAnAudits1795511700000';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      CREATE TABLE ${s}.an_audits (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        shipment_ref text,
        outcome text NOT NULL CHECK (outcome IN ('EXCEPTION', 'FINANCIAL_PENDING', 'PARTIAL_SUCCESS', 'SUCCESS')),
        score integer NOT NULL,
        checks jsonb NOT NULL,
        notice jsonb NOT NULL,
        notified boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE ${schemaOf(q)}.an_audits`);
  }
}
