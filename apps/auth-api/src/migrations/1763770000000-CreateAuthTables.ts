import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateAuthTables1763770000000 implements MigrationInterface {
  name = 'CreateAuthTables1763770000000';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      CREATE TABLE ${s}.users (
        id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        email text NOT NULL,
        full_name text,
        role text NOT NULL DEFAULT 'user',
        is_active boolean NOT NULL DEFAULT true,
        password_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT users_email_key UNIQUE (email),
        CONSTRAINT users_email_lower CHECK (email = lower(email))
      )`);
    await q.query(`
      CREATE TABLE ${s}.logistics_users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        email text NOT NULL,
        full_name text,
        role text NOT NULL,
        is_active boolean NOT NULL DEFAULT true,
        password_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT logistics_users_email_key UNIQUE (email),
        CONSTRAINT logistics_users_email_lower CHECK (email = lower(email)),
        CONSTRAINT logistics_users_role_check CHECK (role IN ('admin', 'terminal_operator', 'driver', 'company_manager'))
      )`);
    await q.query(`
      CREATE TABLE ${s}.logistics_refresh_tokens (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        family_id uuid NOT NULL,
        user_id uuid NOT NULL REFERENCES ${s}.logistics_users (id) ON DELETE CASCADE,
        token_hash text NOT NULL,
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        revoked_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT logistics_refresh_tokens_hash_key UNIQUE (token_hash)
      )`);
    await q.query(`CREATE INDEX logistics_refresh_tokens_family_idx ON ${s}.logistics_refresh_tokens (family_id)`);
    await q.query(`CREATE INDEX logistics_refresh_tokens_user_idx ON ${s}.logistics_refresh_tokens (user_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`DROP TABLE ${s}.logistics_refresh_tokens`);
    await q.query(`DROP TABLE ${s}.logistics_users`);
    await q.query(`DROP TABLE ${s}.users`);
  }
}
