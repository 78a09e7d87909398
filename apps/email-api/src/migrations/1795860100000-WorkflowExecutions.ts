import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Workflow executions (the engine):
 * - `workflow_executions`: one run of a workflow for one contact. `status` RUNNING | WAITING |
 *   COMPLETED | EXITED | FAILED | CANCELLED; `current_step_id` the step it is at (set null when the
 *   step is deleted: the engine then fails it); `step_seq` the number of the step run it is at (each
 *   step run is `(execution_id, seq)`, unique: a step run completes once whatever replica tries);
 *   `due_at` when the engine should next advance it (now for RUNNING, a DELAY's wake-up or a
 *   WAIT_FOR_EVENT's timeout for WAITING, null when nothing is due: waiting for an event without
 *   timeout, or ended); `wait_event` the event name a WAIT_FOR_EVENT waits for; `claimed_until` and
 *   `claim_token` the lease of the replica advancing it (`claimDue`). `(workflow_id, start_key)` is
 *   unique: a start is idempotent per triggering event (`start_key` = the event's id), and at most
 *   one execution per workflow and contact is active at a time (partial unique index).
 * - `workflow_step_runs`: the history, one row per step visited, with status PENDING (a failed
 *   attempt waiting for its retry) | WAITING | COMPLETED | FAILED | SKIPPED, input, output, error
 *   and attempts. The step's type and name are copied (the step may be deleted later).
 */
export class WorkflowExecutions1795860100000 implements MigrationInterface {
  name = 'WorkflowExecutions1795860100000';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    const now = `date_trunc('milliseconds', now())`;
    await q.query(`
      CREATE TABLE ${s}.workflow_executions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        workflow_id uuid NOT NULL REFERENCES ${s}.workflows (id) ON DELETE CASCADE,
        contact_id text NOT NULL REFERENCES ${s}.contacts (id) ON DELETE CASCADE,
        status text NOT NULL CHECK (status IN ('RUNNING', 'WAITING', 'COMPLETED', 'EXITED', 'FAILED', 'CANCELLED')),
        current_step_id uuid REFERENCES ${s}.workflow_steps (id) ON DELETE SET NULL,
        step_seq integer NOT NULL DEFAULT 1,
        context jsonb NOT NULL DEFAULT '{}'::jsonb,
        trigger jsonb NOT NULL DEFAULT '{}'::jsonb,
        start_key text NOT NULL,
        exit_reason text,
        error text,
        due_at timestamptz,
        wait_event text,
        claimed_until timestamptz,
        claim_token uuid,
        created_at timestamptz NOT NULL DEFAULT ${now},
        updated_at timestamptz NOT NULL DEFAULT ${now},
        ended_at timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX workflow_executions_start_key ON ${s}.workflow_executions (workflow_id, start_key)`);
    await q.query(`CREATE UNIQUE INDEX workflow_executions_active_key ON ${s}.workflow_executions (workflow_id, contact_id) WHERE status IN ('RUNNING', 'WAITING')`);
    await q.query(`CREATE INDEX workflow_executions_list_idx ON ${s}.workflow_executions (workflow_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX workflow_executions_contact_idx ON ${s}.workflow_executions (contact_id, workflow_id)`);
    await q.query(`CREATE INDEX workflow_executions_due_idx ON ${s}.workflow_executions (due_at) WHERE status IN ('RUNNING', 'WAITING') AND due_at IS NOT NULL`);
    await q.query(`CREATE INDEX workflow_executions_wait_idx ON ${s}.workflow_executions (project_id, contact_id, wait_event) WHERE status = 'WAITING' AND wait_event IS NOT NULL`);
    await q.query(`CREATE INDEX workflow_executions_step_idx ON ${s}.workflow_executions (current_step_id) WHERE status IN ('RUNNING', 'WAITING')`);
    await q.query(`CREATE INDEX workflow_executions_upcoming_idx ON ${s}.workflow_executions (project_id, due_at) WHERE status = 'WAITING'`);
    await q.query(`
      CREATE TABLE ${s}.workflow_step_runs (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        execution_id uuid NOT NULL REFERENCES ${s}.workflow_executions (id) ON DELETE CASCADE,
        seq integer NOT NULL,
        step_id uuid REFERENCES ${s}.workflow_steps (id) ON DELETE SET NULL,
        step_type text NOT NULL,
        step_name text NOT NULL,
        status text NOT NULL CHECK (status IN ('PENDING', 'RUNNING', 'WAITING', 'COMPLETED', 'FAILED', 'SKIPPED')),
        input jsonb,
        output jsonb,
        error text,
        attempts integer NOT NULL DEFAULT 0,
        started_at timestamptz NOT NULL DEFAULT ${now},
        completed_at timestamptz,
        CONSTRAINT workflow_step_runs_seq_key UNIQUE (execution_id, seq)
      )`);
    await q.query(`CREATE INDEX workflow_step_runs_step_idx ON ${s}.workflow_step_runs (step_id)`);
    await q.query(`CREATE INDEX emails_workflow_execution_idx ON ${s}.emails (workflow_execution_id) WHERE workflow_execution_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`DROP INDEX ${s}.emails_workflow_execution_idx`);
    await q.query(`DROP TABLE ${s}.workflow_step_runs`);
    await q.query(`DROP TABLE ${s}.workflow_executions`);
  }
}
