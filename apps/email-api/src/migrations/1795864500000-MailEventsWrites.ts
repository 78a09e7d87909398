import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Less written per mail event (opens and clicks above all: nearly every row of `mail_events`):
 * - Two indexes serve bounces and complaints only, so they leave out every other event:
 *   `(project_id, type, created_at DESC)`, read for the reputation check's counts of hard bounces
 *   and complaints, becomes `WHERE type IN ('bounce', 'complaint')`; `(project_id, recipient, type,
 *   created_at DESC)`, read for an address's soft bounces, becomes `WHERE type = 'bounce'`. No
 *   other statement reads them (the activity feed and a project's counts go by `(project_id,
 *   created_at DESC, id DESC)`, a mail's events by `(email_id, type, created_at)`, a campaign's by
 *   `(campaign_id, type)`, a contact's by `(contact_id, created_at DESC)`): an open or click writes
 *   six index entries instead of eight.
 * - `mail_event_rollup_queue.n`: a queued row carries a count (1 until now), so a batch of opens and
 *   clicks queues a row per quarter hour, type and flag instead of one per event, and the rollup
 *   worker moves a few rows instead of hundreds.
 */
export class MailEventsWrites1795864500000 implements MigrationInterface {
  name = 'MailEventsWrites1795864500000';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`DROP INDEX ${s}.mail_events_type_idx`);
    await q.query(`DROP INDEX ${s}.mail_events_recipient_idx`);
    await q.query(`CREATE INDEX mail_events_type_idx ON ${s}.mail_events (project_id, type, created_at DESC) WHERE type IN ('bounce', 'complaint')`);
    await q.query(`CREATE INDEX mail_events_recipient_idx ON ${s}.mail_events (project_id, recipient, type, created_at DESC) WHERE type = 'bounce'`);
    await q.query(`ALTER TABLE ${s}.mail_event_rollup_queue ADD COLUMN n integer NOT NULL DEFAULT 1 CHECK (n > 0)`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    // one row per counted event again
    await q.query(`INSERT INTO ${s}.mail_event_rollup_queue (project_id, bucket, type, human) SELECT q.project_id, q.bucket, q.type, q.human FROM ${s}.mail_event_rollup_queue q, generate_series(2, q.n)`);
    await q.query(`ALTER TABLE ${s}.mail_event_rollup_queue DROP COLUMN n`);
    await q.query(`DROP INDEX ${s}.mail_events_type_idx`);
    await q.query(`DROP INDEX ${s}.mail_events_recipient_idx`);
    await q.query(`CREATE INDEX mail_events_type_idx ON ${s}.mail_events (project_id, type, created_at DESC)`);
    await q.query(`CREATE INDEX mail_events_recipient_idx ON ${s}.mail_events (project_id, recipient, type, created_at DESC)`);
  }
}
