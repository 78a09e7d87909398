import { schemaOf } from '@platform/database';
import type { QueryRunner } from 'typeorm';

/**
 * Creates `<schema>.outbox` and `<schema>.processed_events`. Call it from one of the app's
 * migrations (`await createOutboxTables(queryRunner)`), and `dropOutboxTables` from its `down`.
 */
export async function createOutboxTables(q: QueryRunner): Promise<void> {
  const s = schemaOf(q);
  await q.query(`
    CREATE TABLE IF NOT EXISTS ${s}.outbox (
      id bigserial PRIMARY KEY,
      event_id uuid NOT NULL UNIQUE,
      type varchar(200) NOT NULL,
      source varchar(100) NOT NULL,
      occurred_at timestamptz NOT NULL,
      correlation_id varchar(200),
      data jsonb NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      last_error text,
      claimed_until timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      sent_at timestamptz
    )`);
  await q.query(`CREATE INDEX IF NOT EXISTS outbox_pending_idx ON ${s}.outbox (id) WHERE sent_at IS NULL`);
  await q.query(`CREATE INDEX IF NOT EXISTS outbox_sent_at_idx ON ${s}.outbox (sent_at) WHERE sent_at IS NOT NULL`);
  await q.query(`
    CREATE TABLE IF NOT EXISTS ${s}.processed_events (
      consumer varchar(200) NOT NULL,
      event_id varchar(200) NOT NULL,
      processed_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (consumer, event_id)
    )`);
  await q.query(`CREATE INDEX IF NOT EXISTS processed_events_processed_at_idx ON ${s}.processed_events (processed_at)`);
}

export async function dropOutboxTables(q: QueryRunner): Promise<void> {
  const s = schemaOf(q);
  await q.query(`DROP TABLE IF EXISTS ${s}.processed_events`);
  await q.query(`DROP TABLE IF EXISTS ${s}.outbox`);
}
