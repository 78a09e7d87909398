import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Logistics sessions revoked at auth-api (auth.session_revoked), kept until their tokens have expired. */
export class CreateRevokedSessions1795511200000 implements MigrationInterface {
  name = 'CreateRevokedSessions1795511200000';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      CREATE TABLE ${s}.revoked_sessions (
        session_id text PRIMARY KEY,
        revoked_at timestamptz NOT NULL,
        keep_until timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX revoked_sessions_keep_until_idx ON ${s}.revoked_sessions (keep_until)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE ${schemaOf(q)}.revoked_sessions`);
  }
}
