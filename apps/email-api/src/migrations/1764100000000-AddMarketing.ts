import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sending domains (with their DKIM key pair, the private key encrypted), templates, segments (with
 * static or tracked membership) and campaigns. `emails.campaign_id` (already there) gets a unique
 * index with the contact: one campaign mail per contact, whatever crashes and retries happen.
 */
export class AddMarketing1764100000000 implements MigrationInterface {
  name = 'AddMarketing1764100000000';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    const now = `date_trunc('milliseconds', now())`;
    await q.query(`
      CREATE TABLE ${s}.domains (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        domain text NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'verified')),
        dkim_selector text NOT NULL,
        dkim_public_key text NOT NULL,
        dkim_private_key text NOT NULL,
        checks jsonb NOT NULL DEFAULT '[]'::jsonb,
        last_checked_at timestamptz,
        next_check_at timestamptz NOT NULL DEFAULT now(),
        claimed_until timestamptz,
        verified_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT ${now},
        updated_at timestamptz NOT NULL DEFAULT ${now},
        CONSTRAINT domains_project_domain_key UNIQUE (project_id, domain)
      )`);
    await q.query(`CREATE INDEX domains_due_idx ON ${s}.domains (next_check_at) WHERE status = 'pending'`);
    await q.query(`
      CREATE TABLE ${s}.templates (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        domain_id uuid NOT NULL REFERENCES ${s}.domains (id),
        name text NOT NULL,
        subject text NOT NULL,
        body text NOT NULL,
        from_email text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT ${now},
        updated_at timestamptz NOT NULL DEFAULT ${now}
      )`);
    await q.query(`CREATE INDEX templates_project_idx ON ${s}.templates (project_id, created_at DESC)`);
    await q.query(`
      CREATE TABLE ${s}.segments (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        name text NOT NULL,
        slug text NOT NULL,
        description text,
        type text NOT NULL CHECK (type IN ('DYNAMIC', 'STATIC')),
        condition jsonb,
        track_membership boolean NOT NULL DEFAULT false,
        member_count integer NOT NULL DEFAULT 0,
        counted_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT ${now},
        updated_at timestamptz NOT NULL DEFAULT ${now}
      )`);
    await q.query(`CREATE INDEX segments_project_idx ON ${s}.segments (project_id, created_at DESC)`);
    await q.query(`
      CREATE TABLE ${s}.segment_members (
        segment_id uuid NOT NULL REFERENCES ${s}.segments (id) ON DELETE CASCADE,
        contact_id text NOT NULL REFERENCES ${s}.contacts (id) ON DELETE CASCADE,
        entered_at timestamptz NOT NULL DEFAULT now(),
        exited_at timestamptz,
        PRIMARY KEY (segment_id, contact_id)
      )`);
    await q.query(`CREATE INDEX segment_members_contact_idx ON ${s}.segment_members (contact_id) WHERE exited_at IS NULL`);
    await q.query(`
      CREATE TABLE ${s}.campaigns (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        domain_id uuid REFERENCES ${s}.domains (id) ON DELETE SET NULL,
        name text NOT NULL,
        subject text NOT NULL,
        body text NOT NULL,
        from_email text NOT NULL,
        audience_type text NOT NULL CHECK (audience_type IN ('ALL', 'SEGMENT', 'FILTERED')),
        segment_id uuid REFERENCES ${s}.segments (id) ON DELETE SET NULL,
        template_id uuid REFERENCES ${s}.templates (id) ON DELETE SET NULL,
        audience_condition jsonb,
        status text NOT NULL DEFAULT 'DRAFT' CHECK (status IN ('DRAFT', 'SCHEDULED', 'SENDING', 'SENT', 'CANCELLED')),
        scheduled_for timestamptz,
        fanout_done boolean NOT NULL DEFAULT false,
        fanout_after text,
        recipients integer NOT NULL DEFAULT 0,
        claimed_until timestamptz,
        started_at timestamptz,
        finished_at timestamptz,
        cancelled_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT ${now},
        updated_at timestamptz NOT NULL DEFAULT ${now}
      )`);
    await q.query(`CREATE INDEX campaigns_project_idx ON ${s}.campaigns (project_id, created_at DESC)`);
    await q.query(`CREATE INDEX campaigns_due_idx ON ${s}.campaigns (scheduled_for) WHERE status IN ('SCHEDULED', 'SENDING')`);
    await q.query(`CREATE UNIQUE INDEX emails_campaign_contact_key ON ${s}.emails (campaign_id, contact_id) WHERE campaign_id IS NOT NULL`);
    await q.query(`CREATE INDEX emails_campaign_status_idx ON ${s}.emails (campaign_id, status) WHERE campaign_id IS NOT NULL`);
    await q.query(`ALTER TABLE ${s}.emails ADD COLUMN opened_at timestamptz, ADD COLUMN clicked_at timestamptz, ADD COLUMN delivered_at timestamptz, ADD COLUMN bounced_at timestamptz, ADD COLUMN complained_at timestamptz`);
    await q.query(`CREATE INDEX events_contact_name_idx ON ${s}.events (contact_id, name, created_at DESC)`);
    // Segment conditions compare dates held in custom fields: a cast that answers null instead of failing.
    await q.query(`CREATE FUNCTION ${s}.try_timestamptz(v text) RETURNS timestamptz LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN RETURN v::timestamptz; EXCEPTION WHEN others THEN RETURN NULL; END $$`);
    // The per-project send clock of the throttle: the next free send slot of each project.
    await q.query(`
      CREATE TABLE ${s}.send_clock (
        project_id uuid PRIMARY KEY REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        next_slot timestamptz NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`DROP INDEX ${s}.events_contact_name_idx`);
    await q.query(`DROP FUNCTION ${s}.try_timestamptz(text)`);
    await q.query(`DROP INDEX ${s}.emails_campaign_contact_key`);
    await q.query(`DROP INDEX ${s}.emails_campaign_status_idx`);
    await q.query(`ALTER TABLE ${s}.emails DROP COLUMN opened_at, DROP COLUMN clicked_at, DROP COLUMN delivered_at, DROP COLUMN bounced_at, DROP COLUMN complained_at`);
    for (const table of ['send_clock', 'campaigns', 'segment_members', 'segments', 'templates', 'domains']) await q.query(`DROP TABLE ${s}.${table}`);
  }
}
