import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@platform/database';

/**
 * The whole data model of automation-api (all three parts): accounts and keys; automations; runs
 * with their state and step stamps; contacts; the activity log; the service's own comment replies;
 * inbound webhook deduplication; click links and clicks; customer webhook deliveries; scheduled
 * reels and planned posts. Every row carries account_id.
 */
export class InitialSchema1763770000000 implements MigrationInterface {
  name = 'InitialSchema1763770000000';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      CREATE TABLE ${s}.accounts (
        id serial PRIMARY KEY,
        name text NOT NULL,
        ig_user_id text,
        ig_username text,
        graph_url text NOT NULL,
        access_token text,
        token_expires_at timestamptz,
        token_refreshed_at timestamptz,
        app_secret text,
        verify_token text,
        email_public_key text,
        public_base_url text,
        account_status text NOT NULL DEFAULT 'not_connected',
        last_problem text,
        last_problem_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX accounts_ig_user_id_uq ON ${s}.accounts (ig_user_id) WHERE ig_user_id IS NOT NULL`);

    await q.query(`
      CREATE TABLE ${s}.api_keys (
        id serial PRIMARY KEY,
        account_id int NOT NULL REFERENCES ${s}.accounts(id) ON DELETE CASCADE,
        key_hash text NOT NULL UNIQUE,
        key_prefix text NOT NULL,
        label text,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        revoked_at timestamptz
      )`);
    await q.query(`CREATE INDEX api_keys_account_idx ON ${s}.api_keys (account_id)`);

    await q.query(`
      CREATE TABLE ${s}.automations (
        id serial PRIMARY KEY,
        account_id int NOT NULL REFERENCES ${s}.accounts(id) ON DELETE CASCADE,
        name text NOT NULL,
        status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft','active','paused')),
        active boolean NOT NULL DEFAULT true,
        trigger text NOT NULL CHECK (trigger IN ('comment','dm','story_reply')),
        media_ids jsonb,
        next_post boolean NOT NULL DEFAULT false,
        reel_caption text,
        reel_publish_at timestamptz,
        keywords jsonb NOT NULL DEFAULT '[]',
        match_mode text NOT NULL DEFAULT 'word' CHECK (match_mode IN ('word','contains','exact','any')),
        exclude_keywords jsonb NOT NULL DEFAULT '[]',
        public_replies jsonb NOT NULL DEFAULT '[]',
        opening_text text NOT NULL,
        opening_button text,
        follow_gate boolean NOT NULL DEFAULT false,
        gate_text text NOT NULL,
        gate_button text NOT NULL,
        link_url text,
        link_text text NOT NULL,
        link_button text NOT NULL,
        extra_links jsonb NOT NULL DEFAULT '[]',
        follow_up_text text,
        follow_up_minutes int NOT NULL DEFAULT 0 CHECK (follow_up_minutes BETWEEN 0 AND 1380),
        email_gate boolean NOT NULL DEFAULT false,
        email_text text NOT NULL,
        email_retry_text text NOT NULL,
        email_skip_if_known boolean NOT NULL DEFAULT true,
        webhook_url text,
        webhook_secret text,
        track_clicks boolean NOT NULL DEFAULT true,
        tags jsonb NOT NULL DEFAULT '[]',
        once_per_user boolean NOT NULL DEFAULT true,
        priority int NOT NULL DEFAULT 0,
        notes text,
        skip_if_answered boolean NOT NULL DEFAULT true,
        pending_next boolean NOT NULL DEFAULT false,
        reel_status text CHECK (reel_status IN ('waiting','attached','expired')),
        reel_media_id text,
        reel_attached_at timestamptz,
        reel_expired_at timestamptz,
        reel_suggestion jsonb,
        transition_mode boolean NOT NULL DEFAULT false,
        origin text CHECK (origin IN ('import','auto')),
        imported_from text,
        went_live_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX automations_account_status_idx ON ${s}.automations (account_id, status)`);
    await q.query(`CREATE INDEX automations_waiting_idx ON ${s}.automations (account_id) WHERE reel_status = 'waiting'`);

    await q.query(`
      CREATE TABLE ${s}.contacts (
        id serial PRIMARY KEY,
        account_id int NOT NULL REFERENCES ${s}.accounts(id) ON DELETE CASCADE,
        ig_id text NOT NULL,
        username text,
        name text,
        follows smallint CHECK (follows IN (0,1)),
        tags jsonb NOT NULL DEFAULT '[]',
        email text,
        notes text,
        comment_count int NOT NULL DEFAULT 0,
        dm_count int NOT NULL DEFAULT 0,
        first_seen_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        last_inbound_at timestamptz,
        source text,
        imported_from text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (account_id, ig_id)
      )`);
    await q.query(`CREATE INDEX contacts_recent_idx ON ${s}.contacts (account_id, last_seen_at DESC, id DESC)`);
    await q.query(`CREATE INDEX contacts_tags_idx ON ${s}.contacts USING gin (tags)`);

    await q.query(`
      CREATE TABLE ${s}.runs (
        id bigserial PRIMARY KEY,
        account_id int NOT NULL REFERENCES ${s}.accounts(id) ON DELETE CASCADE,
        automation_id int NOT NULL REFERENCES ${s}.automations(id) ON DELETE CASCADE,
        contact_ig_id text NOT NULL,
        username text,
        trigger text NOT NULL,
        media_id text,
        comment_id text,
        message_id text,
        trigger_text text,
        state text NOT NULL DEFAULT 'started',
        transition boolean NOT NULL DEFAULT false,
        public_reply_id text,
        public_reply_sent_at timestamptz,
        dm_sent_at timestamptz,
        button_tapped_at timestamptz,
        gated_at timestamptz,
        gate_passed_at timestamptz,
        email_asked_at timestamptz,
        email_retry_at timestamptz,
        email_captured_at timestamptz,
        email_expired_at timestamptz,
        email text,
        link_sent_at timestamptz,
        clicked_at timestamptz,
        click_count int NOT NULL DEFAULT 0,
        follow_up_due_at timestamptz,
        followed_up_at timestamptz,
        next_action_at timestamptz,
        lease_until timestamptz,
        attempts int NOT NULL DEFAULT 0,
        error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX runs_comment_uq ON ${s}.runs (automation_id, comment_id) WHERE comment_id IS NOT NULL`);
    await q.query(`CREATE UNIQUE INDEX runs_message_uq ON ${s}.runs (automation_id, message_id) WHERE message_id IS NOT NULL`);
    await q.query(`CREATE INDEX runs_automation_contact_idx ON ${s}.runs (automation_id, contact_ig_id)`);
    await q.query(`CREATE INDEX runs_account_idx ON ${s}.runs (account_id, created_at DESC)`);
    await q.query(`CREATE INDEX runs_due_idx ON ${s}.runs (next_action_at) WHERE next_action_at IS NOT NULL`);

    await q.query(`
      CREATE TABLE ${s}.events (
        id bigserial PRIMARY KEY,
        account_id int NOT NULL REFERENCES ${s}.accounts(id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        kind text NOT NULL,
        username text,
        automation_id int REFERENCES ${s}.automations(id) ON DELETE SET NULL,
        run_id bigint REFERENCES ${s}.runs(id) ON DELETE SET NULL,
        text text,
        ref text
      )`);
    await q.query(`CREATE INDEX events_account_idx ON ${s}.events (account_id, id DESC)`);
    await q.query(`CREATE INDEX events_kind_idx ON ${s}.events (account_id, kind, id DESC)`);
    await q.query(`CREATE INDEX events_automation_idx ON ${s}.events (automation_id, id DESC)`);

    await q.query(`
      CREATE TABLE ${s}.comment_replies (
        id bigserial PRIMARY KEY,
        account_id int NOT NULL REFERENCES ${s}.accounts(id) ON DELETE CASCADE,
        comment_id text NOT NULL,
        media_id text,
        kind text NOT NULL CHECK (kind IN ('public_reply','private_reply')),
        reply_id text,
        run_id bigint REFERENCES ${s}.runs(id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (account_id, comment_id, kind)
      )`);
    await q.query(`CREATE INDEX comment_replies_media_idx ON ${s}.comment_replies (account_id, media_id)`);

    // Part 2: webhook ingest is idempotent on the platform's ids (comment id, message mid, postback mid).
    await q.query(`
      CREATE TABLE ${s}.inbound_events (
        id bigserial PRIMARY KEY,
        account_id int REFERENCES ${s}.accounts(id) ON DELETE CASCADE,
        dedup_key text NOT NULL UNIQUE,
        kind text NOT NULL,
        payload jsonb NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now(),
        processed_at timestamptz,
        next_attempt_at timestamptz,
        attempts int NOT NULL DEFAULT 0,
        error text
      )`);
    await q.query(`CREATE INDEX inbound_events_pending_idx ON ${s}.inbound_events (next_attempt_at) WHERE processed_at IS NULL`);

    // Part 2: click redirect. One link per run and button; clicks counted per link.
    await q.query(`
      CREATE TABLE ${s}.click_links (
        id bigserial PRIMARY KEY,
        token text NOT NULL UNIQUE,
        account_id int NOT NULL REFERENCES ${s}.accounts(id) ON DELETE CASCADE,
        automation_id int REFERENCES ${s}.automations(id) ON DELETE SET NULL,
        run_id bigint REFERENCES ${s}.runs(id) ON DELETE CASCADE,
        url text NOT NULL,
        position smallint NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE ${s}.clicks (
        id bigserial PRIMARY KEY,
        link_id bigint NOT NULL REFERENCES ${s}.click_links(id) ON DELETE CASCADE,
        account_id int NOT NULL REFERENCES ${s}.accounts(id) ON DELETE CASCADE,
        clicked_at timestamptz NOT NULL DEFAULT now(),
        ip text,
        user_agent text
      )`);
    await q.query(`CREATE INDEX clicks_link_idx ON ${s}.clicks (link_id)`);

    // Part 2: customer webhooks (email_captured, link_sent), delivered with retries.
    await q.query(`
      CREATE TABLE ${s}.webhook_deliveries (
        id bigserial PRIMARY KEY,
        account_id int NOT NULL REFERENCES ${s}.accounts(id) ON DELETE CASCADE,
        automation_id int REFERENCES ${s}.automations(id) ON DELETE SET NULL,
        run_id bigint REFERENCES ${s}.runs(id) ON DELETE SET NULL,
        kind text NOT NULL,
        url text NOT NULL,
        payload jsonb NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','delivered','failed')),
        attempts int NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        lease_until timestamptz,
        last_status int,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        delivered_at timestamptz
      )`);
    await q.query(`CREATE INDEX webhook_deliveries_due_idx ON ${s}.webhook_deliveries (next_attempt_at) WHERE status = 'pending'`);

    // Part 3: scheduled reels and planned posts (publishing).
    await q.query(`
      CREATE TABLE ${s}.reels (
        id serial PRIMARY KEY,
        account_id int NOT NULL REFERENCES ${s}.accounts(id) ON DELETE CASCADE,
        status text NOT NULL DEFAULT 'scheduled'
          CHECK (status IN ('scheduled','uploading','processing','ready','publishing','published','failed','cancelled')),
        publish_at timestamptz NOT NULL,
        caption text NOT NULL,
        source jsonb NOT NULL,
        trial boolean NOT NULL DEFAULT false,
        share_to_feed boolean,
        automation_id int REFERENCES ${s}.automations(id) ON DELETE SET NULL,
        container_id text,
        container_status text,
        media_id text,
        permalink text,
        published_at timestamptz,
        error text,
        next_attempt_at timestamptz,
        lease_until timestamptz,
        attempts int NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX reels_due_idx ON ${s}.reels (next_attempt_at) WHERE status NOT IN ('published','failed','cancelled')`);
    await q.query(`
      CREATE TABLE ${s}.planned_posts (
        id serial PRIMARY KEY,
        account_id int NOT NULL REFERENCES ${s}.accounts(id) ON DELETE CASCADE,
        status text NOT NULL DEFAULT 'open' CHECK (status IN ('open','published','partial','failed','cancelled')),
        publish_at timestamptz NOT NULL,
        source jsonb NOT NULL,
        idempotency_key text,
        notes jsonb NOT NULL DEFAULT '[]',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE UNIQUE INDEX planned_posts_idempotency_uq ON ${s}.planned_posts (account_id, idempotency_key) WHERE idempotency_key IS NOT NULL`,
    );
    await q.query(`
      CREATE TABLE ${s}.planned_post_targets (
        id serial PRIMARY KEY,
        planned_post_id int NOT NULL REFERENCES ${s}.planned_posts(id) ON DELETE CASCADE,
        platform text NOT NULL CHECK (platform IN ('instagram','youtube')),
        status text NOT NULL DEFAULT 'scheduled',
        publish_at timestamptz NOT NULL,
        reel_id int REFERENCES ${s}.reels(id) ON DELETE SET NULL,
        permalink text,
        external_id text,
        published_at timestamptz,
        error text
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    for (const t of [
      'planned_post_targets',
      'planned_posts',
      'reels',
      'webhook_deliveries',
      'clicks',
      'click_links',
      'inbound_events',
      'comment_replies',
      'events',
      'runs',
      'contacts',
      'automations',
      'api_keys',
      'accounts',
    ]) {
      await q.query(`DROP TABLE IF EXISTS ${s}.${t}`);
    }
  }
}
