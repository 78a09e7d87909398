import { createOutboxTables, dropOutboxTables } from '@platform/messaging';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The transactional outbox (and inbox) of @platform/messaging: events are stored with the change they announce. */
export class CreateOutboxTables1763770100000 implements MigrationInterface {
  name = 'CreateOutboxTables1763770100000';

  async up(q: QueryRunner): Promise<void> {
    await createOutboxTables(q);
  }

  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTables(q);
  }
}
