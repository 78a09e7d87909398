import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The state every replica of the proxy shares: one row per managed service (its life-cycle status,
 * last activity, the start in progress and its deadline, the last error), and the request history.
 */
export class CreateWorkloads1795511098570 implements MigrationInterface {
  name = 'CreateWorkloads1795511098570';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      CREATE TABLE ${s}.workloads (
        name            text PRIMARY KEY,
        status          text NOT NULL DEFAULT 'unknown'
                        CHECK (status IN ('unknown', 'stopped', 'starting', 'running', 'stopping', 'failed')),
        status_since    timestamptz NOT NULL,
        last_activity   timestamptz NOT NULL,
        start_deadline  timestamptz,
        last_error      text,
        starts          integer NOT NULL DEFAULT 0,
        stops           integer NOT NULL DEFAULT 0,
        requests        bigint NOT NULL DEFAULT 0
      )`);
    await q.query(`
      CREATE TABLE ${s}.request_history (
        id           bigserial PRIMARY KEY,
        service      text NOT NULL,
        host         text NOT NULL,
        method       text NOT NULL,
        path         text NOT NULL,
        status       integer NOT NULL,
        outcome      text NOT NULL,
        duration_ms  real NOT NULL,
        at           timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX request_history_service_at ON ${s}.request_history (service, at DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`DROP TABLE ${s}.request_history`);
    await q.query(`DROP TABLE ${s}.workloads`);
  }
}
