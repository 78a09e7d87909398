import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Workflow definitions:
 * - `workflows`: a project's automation, its trigger (`trigger_type` and `trigger_config`:
 *   `{eventName}` for EVENT, `{segmentId}` for SEGMENT_ENTRY / SEGMENT_EXIT, `{}` for MANUAL),
 *   `enabled` and `allow_reentry`. The partial index serves the trigger lookup of the engine
 *   (enabled workflows of a project by trigger type).
 * - `workflow_steps`: the nodes; one TRIGGER step per workflow (the entry, created with it). A
 *   SEND_EMAIL step's template is a column with a foreign key without cascade: a template that a
 *   step uses cannot be deleted. The key is checked at commit (deferred): deleting the project
 *   cascades to its templates and its workflows in one statement, and an immediate check would
 *   see the template go before the steps that reference it.
 * - `workflow_transitions`: the edges, at most one per (source step, branch) — `branch` is yes/no
 *   out of a CONDITION step, `timeout` out of a WAIT_FOR_EVENT step, null otherwise. Both ends are
 *   steps of the transition's own workflow (composite foreign keys on (workflow_id, id)).
 */
export class Workflows1795860000000 implements MigrationInterface {
  name = 'Workflows1795860000000';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    const now = `date_trunc('milliseconds', now())`;
    await q.query(`
      CREATE TABLE ${s}.workflows (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES ${s}.projects (id) ON DELETE CASCADE,
        name text NOT NULL,
        description text,
        trigger_type text NOT NULL DEFAULT 'EVENT' CHECK (trigger_type IN ('EVENT', 'SEGMENT_ENTRY', 'SEGMENT_EXIT', 'MANUAL')),
        trigger_config jsonb NOT NULL DEFAULT '{}'::jsonb,
        enabled boolean NOT NULL DEFAULT false,
        allow_reentry boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT ${now},
        updated_at timestamptz NOT NULL DEFAULT ${now}
      )`);
    await q.query(`CREATE INDEX workflows_project_idx ON ${s}.workflows (project_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX workflows_trigger_idx ON ${s}.workflows (project_id, trigger_type) WHERE enabled`);
    await q.query(`
      CREATE TABLE ${s}.workflow_steps (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workflow_id uuid NOT NULL REFERENCES ${s}.workflows (id) ON DELETE CASCADE,
        type text NOT NULL CHECK (type IN ('TRIGGER', 'SEND_EMAIL', 'DELAY', 'WAIT_FOR_EVENT', 'CONDITION', 'WEBHOOK', 'UPDATE_CONTACT', 'EXIT')),
        name text NOT NULL,
        config jsonb NOT NULL DEFAULT '{}'::jsonb,
        template_id uuid REFERENCES ${s}.templates (id) DEFERRABLE INITIALLY DEFERRED,
        created_at timestamptz NOT NULL DEFAULT ${now},
        updated_at timestamptz NOT NULL DEFAULT ${now},
        CONSTRAINT workflow_steps_workflow_id_key UNIQUE (workflow_id, id),
        CONSTRAINT workflow_steps_template_check CHECK (template_id IS NULL OR type = 'SEND_EMAIL')
      )`);
    await q.query(`CREATE UNIQUE INDEX workflow_steps_trigger_key ON ${s}.workflow_steps (workflow_id) WHERE type = 'TRIGGER'`);
    await q.query(`CREATE INDEX workflow_steps_workflow_idx ON ${s}.workflow_steps (workflow_id, created_at)`);
    await q.query(`CREATE INDEX workflow_steps_template_idx ON ${s}.workflow_steps (template_id) WHERE template_id IS NOT NULL`);
    await q.query(`
      CREATE TABLE ${s}.workflow_transitions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workflow_id uuid NOT NULL REFERENCES ${s}.workflows (id) ON DELETE CASCADE,
        from_step_id uuid NOT NULL,
        to_step_id uuid NOT NULL,
        branch text CHECK (branch IN ('yes', 'no', 'timeout')),
        created_at timestamptz NOT NULL DEFAULT ${now},
        FOREIGN KEY (workflow_id, from_step_id) REFERENCES ${s}.workflow_steps (workflow_id, id) ON DELETE CASCADE,
        FOREIGN KEY (workflow_id, to_step_id) REFERENCES ${s}.workflow_steps (workflow_id, id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE UNIQUE INDEX workflow_transitions_branch_key ON ${s}.workflow_transitions (from_step_id, coalesce(branch, ''))`);
    await q.query(`CREATE INDEX workflow_transitions_workflow_idx ON ${s}.workflow_transitions (workflow_id)`);
    await q.query(`CREATE INDEX workflow_transitions_to_idx ON ${s}.workflow_transitions (to_step_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    for (const table of ['workflow_transitions', 'workflow_steps', 'workflows']) await q.query(`DROP TABLE ${s}.${table}`);
  }
}
