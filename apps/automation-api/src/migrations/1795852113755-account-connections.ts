import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@platform/database';

/**
 * Connecting an account through the platform's OAuth login: one row per connect link (printed by
 * `create-account` / `connect-account`), holding only digests of the link, of the OAuth `state` and of
 * the browser nonce (cookie) the callback must present, each single-use and expiring.
 */
export class AccountConnections1795852113755 implements MigrationInterface {
  name = 'AccountConnections1795852113755';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      CREATE TABLE ${s}.account_connections (
        id serial PRIMARY KEY,
        account_id int NOT NULL REFERENCES ${s}.accounts(id) ON DELETE CASCADE,
        link_sha256 text NOT NULL UNIQUE,
        link_expires_at timestamptz NOT NULL,
        state_sha256 text UNIQUE,
        nonce_sha256 text,
        state_expires_at timestamptz,
        completed_at timestamptz,
        ig_user_id text,
        error text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX account_connections_account_idx ON ${s}.account_connections (account_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE ${schemaOf(q)}.account_connections`);
  }
}
