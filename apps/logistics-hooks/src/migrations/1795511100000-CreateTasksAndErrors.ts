import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Tasks (at most 500, newest first by `seq`), recaps, and deduplicated error records. */
export class CreateTasksAndErrors1795511100000 implements MigrationInterface {
  name = 'CreateTasksAndErrors1795511100000';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      CREATE TABLE ${s}.tasks (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        seq bigserial NOT NULL UNIQUE,
        from_address text NOT NULL,
        subject text NOT NULL,
        body text NOT NULL,
        received_at timestamptz NOT NULL,
        priority text NOT NULL CHECK (priority IN ('HIGH', 'MEDIUM', 'LOW')),
        category text NOT NULL CHECK (category IN ('MISSING_DOCS', 'PAYMENT', 'TRACKING', 'CUSTOMS', 'GENERAL')),
        sentiment text NOT NULL CHECK (sentiment IN ('NEUTRAL', 'URGENT', 'FRUSTRATED')),
        status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'IN_PROGRESS', 'DONE')),
        summary text NOT NULL,
        action_required text NOT NULL,
        due_suggestion date NOT NULL,
        shipment_ref text,
        containers text[] NOT NULL DEFAULT '{}',
        bills_of_lading text[] NOT NULL DEFAULT '{}',
        bookings text[] NOT NULL DEFAULT '{}',
        assigned_to text,
        notes text,
        classified_by text NOT NULL CHECK (classified_by IN ('rules', 'model')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX tasks_containers_idx ON ${s}.tasks USING gin (containers)`);
    await q.query(`CREATE INDEX tasks_bills_idx ON ${s}.tasks USING gin (bills_of_lading)`);
    await q.query(`CREATE INDEX tasks_bookings_idx ON ${s}.tasks USING gin (bookings)`);
    await q.query(`
      CREATE TABLE ${s}.recaps (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        seq bigserial NOT NULL UNIQUE,
        briefing text NOT NULL,
        items jsonb NOT NULL,
        email_count integer NOT NULL,
        generated_by text NOT NULL CHECK (generated_by IN ('extractive', 'model')),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE ${s}.error_records (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        fingerprint char(64) NOT NULL UNIQUE,
        message text NOT NULL,
        source text NOT NULL,
        severity text NOT NULL CHECK (severity IN ('critical', 'error', 'warning', 'info')),
        stack text,
        context jsonb,
        status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'fix proposed', 'resolved')),
        proposed_fix text,
        notes text,
        occurrences integer NOT NULL DEFAULT 1,
        first_seen timestamptz NOT NULL DEFAULT now(),
        last_seen timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX error_records_last_seen_idx ON ${s}.error_records (last_seen DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`DROP TABLE ${s}.error_records`);
    await q.query(`DROP TABLE ${s}.recaps`);
    await q.query(`DROP TABLE ${s}.tasks`);
  }
}
