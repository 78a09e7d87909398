import { createOutboxTables, dropOutboxTables } from '@platform/messaging';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The transactional outbox (and inbox) of @platform/messaging: `transcribe.job_finished` is stored
 * when a job ends and published by the relay once the broker confirms it, so a broker outage
 * delays the event instead of losing it. Job records themselves stay in Redis.
 */
export class CreateOutboxTables1796100000000 implements MigrationInterface {
  name = 'CreateOutboxTables1796100000000';

  async up(q: QueryRunner): Promise<void> {
    await createOutboxTables(q);
  }

  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTables(q);
  }
}
