import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What recipes (automation flows) need: the account's time zone, business hours and out-of-office
 * reply; the labels catalogue; canned responses; recipes with their ETag-guarded draft, immutable
 * published versions and the log of their runs (one per recipe and triggering event); the turns of
 * the round-robin assignment a recipe makes among a team's members.
 */
export class CreateRecipeTables1795851983835 implements MigrationInterface {
  name = 'CreateRecipeTables1795851983835';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      ALTER TABLE ${s}.accounts
        ADD COLUMN time_zone text NOT NULL DEFAULT 'UTC',
        ADD COLUMN business_hours jsonb,
        ADD COLUMN out_of_office_enabled boolean NOT NULL DEFAULT false,
        ADD COLUMN out_of_office_message text,
        ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();
      CREATE TABLE ${s}.labels (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES ${s}.accounts(id) ON DELETE CASCADE,
        name text NOT NULL,
        description text,
        color text NOT NULL DEFAULT '#1f93ff',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX labels_name_key ON ${s}.labels (account_id, lower(name));
      CREATE TABLE ${s}.canned_responses (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES ${s}.accounts(id) ON DELETE CASCADE,
        short_code text NOT NULL,
        content text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX canned_responses_code_key ON ${s}.canned_responses (account_id, lower(short_code));
      CREATE TABLE ${s}.recipes (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES ${s}.accounts(id) ON DELETE CASCADE,
        name text NOT NULL,
        enabled boolean NOT NULL DEFAULT true,
        draft jsonb NOT NULL,
        draft_revision integer NOT NULL DEFAULT 1,
        draft_updated_at timestamptz NOT NULL DEFAULT now(),
        published_version integer,
        trigger text,
        webhook_secret text NOT NULL,
        created_by uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX recipes_account_idx ON ${s}.recipes (account_id, created_at DESC);
      CREATE INDEX recipes_active_idx ON ${s}.recipes (account_id, trigger) WHERE enabled AND published_version IS NOT NULL;
      CREATE TABLE ${s}.recipe_versions (
        recipe_id uuid NOT NULL REFERENCES ${s}.recipes(id) ON DELETE CASCADE,
        version integer NOT NULL,
        definition jsonb NOT NULL,
        rolled_back_from integer,
        published_by uuid,
        published_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (recipe_id, version)
      );
      CREATE TABLE ${s}.recipe_runs (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL,
        recipe_id uuid NOT NULL REFERENCES ${s}.recipes(id) ON DELETE CASCADE,
        version integer NOT NULL,
        event_id uuid NOT NULL,
        trigger text NOT NULL,
        conversation_id uuid,
        depth integer NOT NULL DEFAULT 0,
        outcome text NOT NULL CHECK (outcome IN ('succeeded', 'failed', 'loop_stopped')),
        actions jsonb NOT NULL DEFAULT '[]',
        error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (recipe_id, event_id)
      );
      CREATE INDEX recipe_runs_recipe_idx ON ${s}.recipe_runs (recipe_id, created_at DESC);
      CREATE TABLE ${s}.recipe_assignment_turns (
        team_id uuid NOT NULL REFERENCES ${s}.teams(id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES ${s}.users(id) ON DELETE CASCADE,
        last_assigned_at timestamptz NOT NULL,
        PRIMARY KEY (team_id, user_id)
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    for (const table of ['recipe_assignment_turns', 'recipe_runs', 'recipe_versions', 'recipes', 'canned_responses', 'labels']) await q.query(`DROP TABLE IF EXISTS ${s}.${table}`);
    await q.query(`ALTER TABLE ${s}.accounts DROP COLUMN time_zone, DROP COLUMN business_hours, DROP COLUMN out_of_office_enabled, DROP COLUMN out_of_office_message, DROP COLUMN updated_at`);
  }
}
