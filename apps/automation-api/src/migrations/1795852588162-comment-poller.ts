import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@platform/database';

/**
 * No comment missed: the comment poller's row per account — the start-date watermark (comments
 * older than it are never recovered), the lease that keeps a pass on one replica, what it remembers
 * of each post between passes (comment counts, a read cut short by the request budget) and the
 * last pass's figures for GET /status.
 */
export class CommentPoller1795852588162 implements MigrationInterface {
  name = 'CommentPoller1795852588162';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      CREATE TABLE ${s}.comment_poll_accounts (
        account_id int PRIMARY KEY REFERENCES ${s}.accounts(id) ON DELETE CASCADE,
        since timestamptz NOT NULL,
        lease_until timestamptz,
        memory jsonb NOT NULL DEFAULT '{}'::jsonb,
        last_pass_at timestamptz,
        last_requests int NOT NULL DEFAULT 0,
        last_recovered int NOT NULL DEFAULT 0,
        last_answered int NOT NULL DEFAULT 0,
        recovered_total bigint NOT NULL DEFAULT 0,
        last_error text
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE ${schemaOf(q)}.comment_poll_accounts`);
  }
}
