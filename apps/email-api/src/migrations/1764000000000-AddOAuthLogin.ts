import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * OAuth login (GitHub, Google): pending authorizations (`state` hashed, the PKCE verifier, 10
 * minutes, deleted when used) and the provider accounts linked to users. Users created by an OAuth
 * login have no password until they set one through the password reset.
 */
export class AddOAuthLogin1764000000000 implements MigrationInterface {
  name = 'AddOAuthLogin1764000000000';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`ALTER TABLE ${s}.users ALTER COLUMN password_hash DROP NOT NULL`);
    await q.query(`
      CREATE TABLE ${s}.oauth_states (
        state_hash text PRIMARY KEY,
        provider text NOT NULL,
        code_verifier text NOT NULL,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX oauth_states_expires_idx ON ${s}.oauth_states (expires_at)`);
    await q.query(`
      CREATE TABLE ${s}.oauth_accounts (
        provider text NOT NULL,
        provider_user_id text NOT NULL,
        user_id uuid NOT NULL REFERENCES ${s}.users (id) ON DELETE CASCADE,
        email text,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_login_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (provider, provider_user_id)
      )`);
    await q.query(`CREATE INDEX oauth_accounts_user_idx ON ${s}.oauth_accounts (user_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`DROP TABLE ${s}.oauth_accounts`);
    await q.query(`DROP TABLE ${s}.oauth_states`);
    // Password-less users cannot survive the old constraint.
    await q.query(`DELETE FROM ${s}.users WHERE password_hash IS NULL`);
    await q.query(`ALTER TABLE ${s}.users ALTER COLUMN password_hash SET NOT NULL`);
  }
}
