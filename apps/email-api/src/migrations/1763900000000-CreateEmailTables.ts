import { schemaOf } from '@platform/database';
import { createOutboxTables, dropOutboxTables } from '@platform/messaging';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Part 1 of email-api: users, projects and their keys, members, contacts, events, emails (the send
 * queue and the activity feed), queued jobs (CSV import, bulk actions), idempotency keys, and the
 * messaging outbox/inbox. The tables of parts 2 and 3 (templates, campaigns, segments, domains,
 * workflows, billing) will come in their own migrations; `emails` already carries the nullable
 * references they will fill.
 *
 * Timestamps that order pages are truncated to milliseconds so that a cursor built from a JS Date
 * points exactly at its row.
 */
export class CreateEmailTables1763900000000 implements MigrationInterface {
  name = 'CreateEmailTables1763900000000';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    const now = `date_trunc('milliseconds', now())`;
    await q.query(`
      CREATE TABLE ${s}.users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        email text NOT NULL,
        name text,
        password_hash text NOT NULL,
        email_verified_at timestamptz,
        session_version integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT users_email_key UNIQUE (email),
        CONSTRAINT users_email_lower CHECK (email = lower(email))
      )`);
    await q.query(`
      CREATE TABLE ${s}.user_tokens (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES ${s}.users (id) ON DELETE CASCADE,
        purpose text NOT NULL CHECK (purpose IN ('verify_email', 'reset_password')),
        token_hash text NOT NULL UNIQUE,
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX user_tokens_user_idx ON ${s}.user_tokens (user_id, purpose)`);
    await q.query(`
      CREATE TABLE ${s}.projects (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL,
        public_key text NOT NULL,
        secret_key_hash text NOT NULL,
        secret_key_hint text NOT NULL,
        keys_rotated_at timestamptz NOT NULL DEFAULT now(),
        disabled boolean NOT NULL DEFAULT false,
        disabled_reason text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT projects_public_key_key UNIQUE (public_key),
        CONSTRAINT projects_secret_key_hash_key UNIQUE (secret_key_hash)
      )`);
    await q.query(`
      CREATE TABLE ${s}.project_members (
        project_id uuid NOT NULL REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES ${s}.users (id) ON DELETE CASCADE,
        role text NOT NULL CHECK (role IN ('OWNER', 'ADMIN', 'MEMBER')),
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (project_id, user_id)
      )`);
    await q.query(`CREATE INDEX project_members_user_idx ON ${s}.project_members (user_id)`);
    await q.query(`
      CREATE TABLE ${s}.contacts (
        id text PRIMARY KEY,
        project_id uuid NOT NULL REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        email text NOT NULL,
        subscribed boolean NOT NULL DEFAULT true,
        data jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT ${now},
        updated_at timestamptz NOT NULL DEFAULT ${now},
        CONSTRAINT contacts_project_email_key UNIQUE (project_id, email),
        CONSTRAINT contacts_email_lower CHECK (email = lower(email))
      )`);
    await q.query(`CREATE INDEX contacts_page_idx ON ${s}.contacts (project_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX contacts_data_idx ON ${s}.contacts USING gin (data jsonb_path_ops)`);
    await q.query(`
      CREATE TABLE ${s}.events (
        id text PRIMARY KEY,
        project_id uuid NOT NULL REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        contact_id text REFERENCES ${s}.contacts (id) ON DELETE CASCADE,
        name text NOT NULL,
        data jsonb,
        created_at timestamptz NOT NULL DEFAULT ${now}
      )`);
    await q.query(`CREATE INDEX events_page_idx ON ${s}.events (project_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX events_name_idx ON ${s}.events (project_id, name, created_at DESC)`);
    await q.query(`CREATE INDEX events_contact_idx ON ${s}.events (contact_id, created_at DESC)`);
    await q.query(`
      CREATE TABLE ${s}.emails (
        id text PRIMARY KEY,
        project_id uuid REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        contact_id text REFERENCES ${s}.contacts (id) ON DELETE SET NULL,
        kind text NOT NULL CHECK (kind IN ('TRANSACTIONAL', 'MARKETING', 'SYSTEM')),
        source text NOT NULL CHECK (source IN ('API', 'CAMPAIGN', 'WORKFLOW', 'SYSTEM')),
        status text NOT NULL CHECK (status IN ('QUEUED', 'SENDING', 'SENT', 'FAILED', 'SUPPRESSED', 'STORED')),
        status_reason text,
        to_email text NOT NULL,
        from_email text NOT NULL,
        from_name text,
        reply_to text,
        subject text NOT NULL,
        html text NOT NULL,
        headers jsonb NOT NULL DEFAULT '{}'::jsonb,
        attachments jsonb NOT NULL DEFAULT '[]'::jsonb,
        data jsonb,
        template_id uuid,
        campaign_id uuid,
        workflow_execution_id uuid,
        message_id text,
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        claimed_until timestamptz,
        sent_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT ${now},
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX emails_due_idx ON ${s}.emails (next_attempt_at) WHERE status = 'QUEUED'`);
    await q.query(`CREATE INDEX emails_page_idx ON ${s}.emails (project_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX emails_contact_idx ON ${s}.emails (contact_id)`);
    await q.query(`
      CREATE TABLE ${s}.jobs (
        id text PRIMARY KEY,
        project_id uuid NOT NULL REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        type text NOT NULL CHECK (type IN ('IMPORT', 'BULK_SUBSCRIBE', 'BULK_UNSUBSCRIBE', 'BULK_DELETE')),
        state text NOT NULL CHECK (state IN ('waiting', 'active', 'completed', 'failed')),
        payload jsonb NOT NULL DEFAULT '{}'::jsonb,
        input text,
        total integer NOT NULL DEFAULT 0,
        processed integer NOT NULL DEFAULT 0,
        result jsonb,
        errors jsonb NOT NULL DEFAULT '[]'::jsonb,
        failed_reason text,
        attempts integer NOT NULL DEFAULT 0,
        claimed_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz,
        finished_at timestamptz
      )`);
    await q.query(`CREATE INDEX jobs_due_idx ON ${s}.jobs (created_at) WHERE state IN ('waiting', 'active')`);
    await q.query(`CREATE INDEX jobs_project_idx ON ${s}.jobs (project_id, created_at DESC)`);
    await q.query(`
      CREATE TABLE ${s}.idempotency_keys (
        project_id uuid NOT NULL REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        scope text NOT NULL,
        key text NOT NULL,
        request_hash text NOT NULL,
        status_code integer,
        response jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (project_id, scope, key)
      )`);
    await q.query(`CREATE INDEX idempotency_keys_created_idx ON ${s}.idempotency_keys (created_at)`);
    await createOutboxTables(q);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await dropOutboxTables(q);
    for (const table of ['idempotency_keys', 'jobs', 'emails', 'events', 'contacts', 'project_members', 'projects', 'user_tokens', 'users']) {
      await q.query(`DROP TABLE ${s}.${table}`);
    }
  }
}
