import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The deliverability loop's own tables:
 * - `mail_events`: append-only, one row per send, delivery, open, click, bounce, complaint,
 *   unsubscribe and inbound message, keyed to the mail, contact, campaign or workflow execution and
 *   project; `(project_id, idempotency_key)` is unique so a redelivered report lands once. No
 *   foreign key to contacts or emails: the log outlives a contact's deletion. Updates are refused
 *   by a trigger (deletes only come with the project or its reset).
 * - `mail_event_rollups`: one row per project and quarter hour (every time zone's offset is a
 *   multiple of 15 minutes, so hours and days of any zone are sums of them) with a count per type
 *   (opens and clicks split into human and flagged); the
 *   statement that inserts an event appends its count to `mail_event_rollup_queue`, which the rollup
 *   worker moves into the rollups (concurrent writers never wait for one another's rollup row).
 * - `suppressions`: addresses a project never mails again (hard bounce, complaint, unsubscribe,
 *   manual), by address, so they survive contact deletion and re-import.
 * - `projects.tracking_enabled` (open and click tracking), `emails.links` (the links a tracked mail
 *   carries; clicks redirect only to them).
 */
export class MailEvents1795851988923 implements MigrationInterface {
  name = 'MailEvents1795851988923';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      CREATE TABLE ${s}.mail_events (
        id text PRIMARY KEY,
        project_id uuid NOT NULL REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        email_id text,
        contact_id text,
        campaign_id uuid,
        workflow_execution_id uuid,
        type text NOT NULL CHECK (type IN ('send', 'delivery', 'open', 'click', 'bounce', 'complaint', 'unsubscribe', 'received')),
        bounce_type text CHECK (bounce_type IN ('hard', 'soft')),
        recipient text,
        url text,
        flag text CHECK (flag IN ('privacy_proxy', 'scanner')),
        source text NOT NULL,
        data jsonb,
        idempotency_key text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
        CONSTRAINT mail_events_bounce_type CHECK ((type = 'bounce') = (bounce_type IS NOT NULL)),
        CONSTRAINT mail_events_idempotency_key UNIQUE (project_id, idempotency_key)
      )`);
    await q.query(`CREATE INDEX mail_events_page_idx ON ${s}.mail_events (project_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX mail_events_type_idx ON ${s}.mail_events (project_id, type, created_at DESC)`);
    await q.query(`CREATE INDEX mail_events_email_idx ON ${s}.mail_events (email_id, type, created_at)`);
    await q.query(`CREATE INDEX mail_events_campaign_idx ON ${s}.mail_events (campaign_id, type) WHERE campaign_id IS NOT NULL`);
    await q.query(`CREATE INDEX mail_events_contact_idx ON ${s}.mail_events (contact_id, created_at DESC) WHERE contact_id IS NOT NULL`);
    await q.query(`CREATE INDEX mail_events_recipient_idx ON ${s}.mail_events (project_id, recipient, type, created_at DESC)`);
    await q.query(`
      CREATE FUNCTION ${s}.mail_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'mail_events is append-only';
      END $$`);
    await q.query(`CREATE TRIGGER mail_events_no_update BEFORE UPDATE ON ${s}.mail_events FOR EACH ROW EXECUTE FUNCTION ${s}.mail_events_append_only()`);
    await q.query(`
      CREATE TABLE ${s}.mail_event_rollups (
        project_id uuid NOT NULL REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        bucket timestamptz NOT NULL,
        sent integer NOT NULL DEFAULT 0,
        delivered integer NOT NULL DEFAULT 0,
        opened integer NOT NULL DEFAULT 0,
        opened_flagged integer NOT NULL DEFAULT 0,
        clicked integer NOT NULL DEFAULT 0,
        clicked_flagged integer NOT NULL DEFAULT 0,
        bounced integer NOT NULL DEFAULT 0,
        complained integer NOT NULL DEFAULT 0,
        unsubscribed integer NOT NULL DEFAULT 0,
        received integer NOT NULL DEFAULT 0,
        PRIMARY KEY (project_id, bucket)
      )`);
    // Counts waiting for the rollups: the statements that insert events append here (no row shared
    // by concurrent writers), the rollup worker moves them into mail_event_rollups.
    await q.query(`
      CREATE TABLE ${s}.mail_event_rollup_queue (
        project_id uuid NOT NULL,
        bucket timestamptz NOT NULL,
        type text NOT NULL,
        human boolean NOT NULL
      )`);
    await q.query(`
      CREATE TABLE ${s}.suppressions (
        project_id uuid NOT NULL REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        email text NOT NULL,
        reason text NOT NULL CHECK (reason IN ('hard_bounce', 'complaint', 'unsubscribe', 'manual')),
        source text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
        PRIMARY KEY (project_id, email),
        CONSTRAINT suppressions_email_lower CHECK (email = lower(email))
      )`);
    await q.query(`CREATE INDEX suppressions_page_idx ON ${s}.suppressions (project_id, created_at DESC, email DESC)`);
    await q.query(`ALTER TABLE ${s}.projects ADD COLUMN tracking_enabled boolean NOT NULL DEFAULT true`);
    await q.query(`ALTER TABLE ${s}.emails ADD COLUMN links text[]`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`ALTER TABLE ${s}.emails DROP COLUMN links`);
    await q.query(`ALTER TABLE ${s}.projects DROP COLUMN tracking_enabled`);
    await q.query(`DROP TABLE ${s}.suppressions`);
    await q.query(`DROP TABLE ${s}.mail_event_rollup_queue`);
    await q.query(`DROP TABLE ${s}.mail_event_rollups`);
    await q.query(`DROP TABLE ${s}.mail_events`);
    await q.query(`DROP FUNCTION ${s}.mail_events_append_only()`);
  }
}
