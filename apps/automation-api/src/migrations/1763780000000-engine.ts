import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@platform/database';
import { createOutboxTables, dropOutboxTables } from '@platform/messaging';

/**
 * Part 2 (the engine): the messaging outbox; a work queue on inbound_events (lease, per-person
 * ordering subject, the run it produced); send intents per run step (crash safety: recorded before
 * calling the platform, confirmed after); an optimistic version on runs; next_post scheduling state.
 */
export class Engine1763780000000 implements MigrationInterface {
  name = 'Engine1763780000000';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await createOutboxTables(q);
    await q.query(`ALTER TABLE ${s}.inbound_events
      ADD COLUMN subject text NOT NULL DEFAULT '',
      ADD COLUMN lease_until timestamptz,
      ADD COLUMN applied_at timestamptz,
      ADD COLUMN run_id bigint`);
    await q.query(`CREATE INDEX inbound_events_subject_idx ON ${s}.inbound_events (subject, id) WHERE processed_at IS NULL`);
    await q.query(`ALTER TABLE ${s}.runs ADD COLUMN version int NOT NULL DEFAULT 0, ADD COLUMN parent_comment_id text`);
    await q.query(`CREATE INDEX runs_contact_state_idx ON ${s}.runs (account_id, contact_ig_id, state)`);
    await q.query(`
      CREATE TABLE ${s}.run_sends (
        id bigserial PRIMARY KEY,
        account_id int NOT NULL REFERENCES ${s}.accounts(id) ON DELETE CASCADE,
        run_id bigint NOT NULL,
        step_key text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('public_reply','private_reply','dm')),
        payload jsonb NOT NULL,
        status text NOT NULL DEFAULT 'intent' CHECK (status IN ('intent','done','failed')),
        platform_id text,
        error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        done_at timestamptz,
        UNIQUE (run_id, step_key)
      )`);
    await q.query(`ALTER TABLE ${s}.accounts ADD COLUMN reel_lease_until timestamptz`);
    await q.query(`ALTER TABLE ${s}.automations ADD COLUMN reel_backfilled_at timestamptz`);
    await q.query(`CREATE INDEX click_links_run_idx ON ${s}.click_links (run_id)`);
    // Clicks are stored on the response path and counted right after it (counted_at marks it done).
    await q.query(`ALTER TABLE ${s}.clicks ADD COLUMN counted_at timestamptz`);
    await q.query(`CREATE INDEX clicks_uncounted_idx ON ${s}.clicks (id) WHERE counted_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`DROP INDEX IF EXISTS ${s}.clicks_uncounted_idx`);
    await q.query(`ALTER TABLE ${s}.clicks DROP COLUMN counted_at`);
    await q.query(`DROP INDEX IF EXISTS ${s}.click_links_run_idx`);
    await q.query(`ALTER TABLE ${s}.automations DROP COLUMN reel_backfilled_at`);
    await q.query(`ALTER TABLE ${s}.accounts DROP COLUMN reel_lease_until`);
    await q.query(`DROP TABLE ${s}.run_sends`);
    await q.query(`DROP INDEX IF EXISTS ${s}.runs_contact_state_idx`);
    await q.query(`ALTER TABLE ${s}.runs DROP COLUMN version, DROP COLUMN parent_comment_id`);
    await q.query(`DROP INDEX IF EXISTS ${s}.inbound_events_subject_idx`);
    await q.query(`ALTER TABLE ${s}.inbound_events DROP COLUMN subject, DROP COLUMN lease_until, DROP COLUMN applied_at, DROP COLUMN run_id`);
    await dropOutboxTables(q);
  }
}
