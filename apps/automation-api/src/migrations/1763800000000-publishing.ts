import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@platform/database';

/**
 * Publishing (part 3): uploaded videos (`videos`, the files live under DATA_DIR), what the reel and
 * planned-post workers need on `reels` / `planned_posts` / `planned_post_targets` (caption, title,
 * lease, attempts, the YouTube upload session), the YouTube refresh token of an account, and the lease of the token scheduler.
 */
export class Publishing1763800000000 implements MigrationInterface {
  name = 'Publishing1763800000000';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      CREATE TABLE ${s}.videos (
        id uuid PRIMARY KEY,
        account_id int NOT NULL REFERENCES ${s}.accounts(id) ON DELETE CASCADE,
        content_type text NOT NULL,
        size_bytes bigint NOT NULL,
        file_status text NOT NULL CHECK (file_status IN ('stored','uploaded','deleted')),
        path text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX videos_account_idx ON ${s}.videos (account_id)`);
    await q.query(`ALTER TABLE ${s}.reels ADD COLUMN polls int NOT NULL DEFAULT 0`);
    await q.query(`CREATE INDEX reels_account_idx ON ${s}.reels (account_id, id)`);
    await q.query(`CREATE UNIQUE INDEX reels_automation_uq ON ${s}.reels (automation_id) WHERE automation_id IS NOT NULL AND status NOT IN ('failed','cancelled')`);
    await q.query(`ALTER TABLE ${s}.planned_posts ADD COLUMN caption text NOT NULL DEFAULT '', ADD COLUMN title text`);
    await q.query(`CREATE INDEX planned_posts_account_idx ON ${s}.planned_posts (account_id, id)`);
    await q.query(`
      ALTER TABLE ${s}.planned_post_targets
        ADD COLUMN account_id int REFERENCES ${s}.accounts(id) ON DELETE CASCADE,
        ADD COLUMN lease_until timestamptz,
        ADD COLUMN attempts int NOT NULL DEFAULT 0,
        ADD COLUMN next_attempt_at timestamptz,
        ADD COLUMN upload_url text,
        ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now()`);
    await q.query(`CREATE INDEX planned_post_targets_post_idx ON ${s}.planned_post_targets (planned_post_id)`);
    await q.query(`CREATE INDEX planned_post_targets_due_idx ON ${s}.planned_post_targets (next_attempt_at) WHERE status = 'scheduled'`);
    await q.query(`CREATE INDEX planned_post_targets_reel_idx ON ${s}.planned_post_targets (reel_id) WHERE reel_id IS NOT NULL`);
    await q.query(`ALTER TABLE ${s}.accounts ADD COLUMN youtube_refresh_token text, ADD COLUMN token_lease_until timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`ALTER TABLE ${s}.accounts DROP COLUMN youtube_refresh_token, DROP COLUMN token_lease_until`);
    await q.query(`DROP INDEX IF EXISTS ${s}.planned_post_targets_reel_idx`);
    await q.query(`DROP INDEX IF EXISTS ${s}.planned_post_targets_due_idx`);
    await q.query(`DROP INDEX IF EXISTS ${s}.planned_post_targets_post_idx`);
    await q.query(`ALTER TABLE ${s}.planned_post_targets DROP COLUMN account_id, DROP COLUMN lease_until, DROP COLUMN attempts, DROP COLUMN next_attempt_at, DROP COLUMN upload_url, DROP COLUMN updated_at`);
    await q.query(`DROP INDEX IF EXISTS ${s}.planned_posts_account_idx`);
    await q.query(`ALTER TABLE ${s}.planned_posts DROP COLUMN caption, DROP COLUMN title`);
    await q.query(`DROP INDEX IF EXISTS ${s}.reels_automation_uq`);
    await q.query(`DROP INDEX IF EXISTS ${s}.reels_account_idx`);
    await q.query(`ALTER TABLE ${s}.reels DROP COLUMN polls`);
    await q.query(`DROP TABLE ${s}.videos`);
  }
}
