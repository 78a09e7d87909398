import { createOutboxTables, dropOutboxTables } from '@platform/messaging';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The transactional outbox and the inbox of @platform/messaging, in this service's schema. */
export class CreateOutboxTables1795511023859 implements MigrationInterface {
  name = 'CreateOutboxTables1795511023859';

  async up(q: QueryRunner): Promise<void> {
    await createOutboxTables(q);
  }

  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTables(q);
  }
}
