import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

const CANCELLED_REASON = 'The campaign was cancelled before this mail was handed to SMTP';

/**
 * Fixes of parts 1–2 found by an outside read:
 * - a mail of a cancelled campaign gets its own status `CANCELLED` (it was `FAILED`, which the
 *   segment condition `email.bounced` counted as a bounce); rows written so far are moved;
 * - a permanent SMTP refusal (5xx at send time) is a bounce and stamps `bounced_at` (backfilled);
 * - segment recomputes run as jobs (`SEGMENT_COMPUTE`);
 * - verified domains are checked again (daily): one whose records vanished goes `degraded`.
 */
export class DeliverabilityFixes1764200000000 implements MigrationInterface {
  name = 'DeliverabilityFixes1764200000000';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`ALTER TABLE ${s}.emails DROP CONSTRAINT emails_status_check`);
    await q.query(`ALTER TABLE ${s}.emails ADD CONSTRAINT emails_status_check CHECK (status IN ('QUEUED', 'SENDING', 'SENT', 'FAILED', 'SUPPRESSED', 'STORED', 'CANCELLED'))`);
    await q.query(`UPDATE ${s}.emails SET status = 'CANCELLED' WHERE status = 'FAILED' AND status_reason = $1`, [CANCELLED_REASON]);
    await q.query(`UPDATE ${s}.emails SET bounced_at = updated_at WHERE status = 'FAILED' AND bounced_at IS NULL AND status_reason ~ '^5[0-9][0-9] '`);
    await q.query(`ALTER TABLE ${s}.jobs DROP CONSTRAINT jobs_type_check`);
    await q.query(`ALTER TABLE ${s}.jobs ADD CONSTRAINT jobs_type_check CHECK (type IN ('IMPORT', 'BULK_SUBSCRIBE', 'BULK_UNSUBSCRIBE', 'BULK_DELETE', 'SEGMENT_COMPUTE'))`);
    await q.query(`ALTER TABLE ${s}.domains DROP CONSTRAINT domains_status_check`);
    await q.query(`ALTER TABLE ${s}.domains ADD CONSTRAINT domains_status_check CHECK (status IN ('pending', 'verified', 'degraded'))`);
    await q.query(`DROP INDEX ${s}.domains_due_idx`);
    await q.query(`CREATE INDEX domains_due_idx ON ${s}.domains (next_check_at)`);
    // Verified domains join the daily re-check, first within a day.
    await q.query(`UPDATE ${s}.domains SET next_check_at = now() + interval '1 day' WHERE status = 'verified'`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`UPDATE ${s}.domains SET status = 'pending' WHERE status = 'degraded'`);
    await q.query(`DROP INDEX ${s}.domains_due_idx`);
    await q.query(`CREATE INDEX domains_due_idx ON ${s}.domains (next_check_at) WHERE status = 'pending'`);
    await q.query(`ALTER TABLE ${s}.domains DROP CONSTRAINT domains_status_check`);
    await q.query(`ALTER TABLE ${s}.domains ADD CONSTRAINT domains_status_check CHECK (status IN ('pending', 'verified'))`);
    await q.query(`DELETE FROM ${s}.jobs WHERE type = 'SEGMENT_COMPUTE'`);
    await q.query(`ALTER TABLE ${s}.jobs DROP CONSTRAINT jobs_type_check`);
    await q.query(`ALTER TABLE ${s}.jobs ADD CONSTRAINT jobs_type_check CHECK (type IN ('IMPORT', 'BULK_SUBSCRIBE', 'BULK_UNSUBSCRIBE', 'BULK_DELETE'))`);
    await q.query(`UPDATE ${s}.emails SET status = 'FAILED' WHERE status = 'CANCELLED'`);
    await q.query(`ALTER TABLE ${s}.emails DROP CONSTRAINT emails_status_check`);
    await q.query(`ALTER TABLE ${s}.emails ADD CONSTRAINT emails_status_check CHECK (status IN ('QUEUED', 'SENDING', 'SENT', 'FAILED', 'SUPPRESSED', 'STORED'))`);
  }
}
