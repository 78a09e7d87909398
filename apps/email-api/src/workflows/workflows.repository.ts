import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { Branch, StepType, TriggerConfig, TriggerType } from './step-config';
import type { StepRow, TransitionRow, WorkflowRow } from './workflow';

export interface WorkflowPatch {
  name?: string;
  description?: string | null;
  triggerType?: TriggerType;
  triggerConfig?: TriggerConfig;
  enabled?: boolean;
  allowReentry?: boolean;
}

/** Workflow definitions: workflows, their steps and transitions. */
@Injectable()
export class WorkflowsRepository {
  constructor(private readonly db: Database) {}

  private get workflows(): string {
    return this.db.table('workflows');
  }
  private get steps(): string {
    return this.db.table('workflow_steps');
  }
  private get transitions(): string {
    return this.db.table('workflow_transitions');
  }

  async insert(projectId: string, w: { name: string; description: string | null; allowReentry: boolean }): Promise<WorkflowRow> {
    return (await this.db.one<WorkflowRow>(
      `INSERT INTO ${this.workflows} (project_id, name, description, allow_reentry) VALUES ($1, $2, $3, $4) RETURNING *`,
      [projectId, w.name, w.description, w.allowReentry],
    ))!;
  }

  /** Page-based list, newest first; `enabled` filters. */
  async page(projectId: string, limit: number, offset: number, enabled?: boolean): Promise<{ rows: WorkflowRow[]; total: number }> {
    const where = `project_id = $1${enabled === undefined ? '' : ' AND enabled = $2'}`;
    const params = enabled === undefined ? [projectId] : [projectId, enabled];
    const [rows, count] = await Promise.all([
      this.db.rows<WorkflowRow>(`SELECT * FROM ${this.workflows} WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`, params),
      this.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.workflows} WHERE ${where}`, params),
    ]);
    return { rows, total: count!.n };
  }

  /** `lock`: FOR UPDATE (every change of a definition locks its workflow: edits of one workflow run one at a time). */
  findById(projectId: string, id: string, lock = false): Promise<WorkflowRow | null> {
    return this.db.one<WorkflowRow>(`SELECT * FROM ${this.workflows} WHERE project_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [projectId, id]);
  }

  async update(id: string, p: WorkflowPatch): Promise<WorkflowRow> {
    return (await this.db.one<WorkflowRow>(
      `UPDATE ${this.workflows} SET
          name = coalesce($2, name),
          description = CASE WHEN $3::boolean THEN $4 ELSE description END,
          trigger_type = coalesce($5, trigger_type),
          trigger_config = coalesce($6::jsonb, trigger_config),
          enabled = coalesce($7, enabled),
          allow_reentry = coalesce($8, allow_reentry),
          updated_at = now()
        WHERE id = $1 RETURNING *`,
      [
        id,
        p.name ?? null,
        p.description !== undefined,
        p.description ?? null,
        p.triggerType ?? null,
        p.triggerConfig ? JSON.stringify(p.triggerConfig) : null,
        p.enabled ?? null,
        p.allowReentry ?? null,
      ],
    ))!;
  }

  /** Marks the workflow changed (a step or transition changed). */
  async touch(id: string): Promise<void> {
    await this.db.affected(`UPDATE ${this.workflows} SET updated_at = now() WHERE id = $1`, [id]);
  }

  async delete(id: string): Promise<void> {
    await this.db.affected(`DELETE FROM ${this.workflows} WHERE id = $1`, [id]);
  }

  stepsOf(workflowId: string): Promise<StepRow[]> {
    return this.db.rows<StepRow>(`SELECT * FROM ${this.steps} WHERE workflow_id = $1 ORDER BY created_at, id`, [workflowId]);
  }

  transitionsOf(workflowId: string): Promise<TransitionRow[]> {
    return this.db.rows<TransitionRow>(`SELECT * FROM ${this.transitions} WHERE workflow_id = $1 ORDER BY created_at, id`, [workflowId]);
  }

  findStep(workflowId: string, stepId: string): Promise<StepRow | null> {
    return this.db.one<StepRow>(`SELECT * FROM ${this.steps} WHERE workflow_id = $1 AND id = $2`, [workflowId, stepId]);
  }

  async insertStep(workflowId: string, s: { type: StepType; name: string; config: Record<string, unknown>; templateId: string | null }): Promise<StepRow> {
    return (await this.db.one<StepRow>(
      `INSERT INTO ${this.steps} (workflow_id, type, name, config, template_id) VALUES ($1, $2, $3, $4::jsonb, $5) RETURNING *`,
      [workflowId, s.type, s.name, JSON.stringify(s.config), s.templateId],
    ))!;
  }

  async updateStep(stepId: string, s: { name: string; config: Record<string, unknown>; templateId: string | null }): Promise<StepRow> {
    return (await this.db.one<StepRow>(
      `UPDATE ${this.steps} SET name = $2, config = $3::jsonb, template_id = $4, updated_at = now() WHERE id = $1 RETURNING *`,
      [stepId, s.name, JSON.stringify(s.config), s.templateId],
    ))!;
  }

  /** Deletes the step; its transitions go with it (foreign keys with cascade). */
  async deleteStep(stepId: string): Promise<void> {
    await this.db.affected(`DELETE FROM ${this.steps} WHERE id = $1`, [stepId]);
  }

  /** Points every transition into `from` at `to` instead (the splice of a deleted step). */
  async redirectIncoming(fromStepId: string, toStepId: string): Promise<number> {
    return this.db.affected(`UPDATE ${this.transitions} SET to_step_id = $2 WHERE to_step_id = $1 AND from_step_id <> $1`, [fromStepId, toStepId]);
  }

  findTransition(workflowId: string, id: string): Promise<TransitionRow | null> {
    return this.db.one<TransitionRow>(`SELECT * FROM ${this.transitions} WHERE workflow_id = $1 AND id = $2`, [workflowId, id]);
  }

  /** Null when the step already has a transition with this branch (one per step and branch). */
  insertTransition(workflowId: string, t: { fromStepId: string; toStepId: string; branch: Branch | null }): Promise<TransitionRow | null> {
    return this.db.one<TransitionRow>(
      `INSERT INTO ${this.transitions} (workflow_id, from_step_id, to_step_id, branch) VALUES ($1, $2, $3, $4)
       ON CONFLICT (from_step_id, (coalesce(branch, ''))) DO NOTHING RETURNING *`,
      [workflowId, t.fromStepId, t.toStepId, t.branch],
    );
  }

  async deleteTransition(id: string): Promise<void> {
    await this.db.affected(`DELETE FROM ${this.transitions} WHERE id = $1`, [id]);
  }

  /** SEND_EMAIL steps using the template, with their workflow. */
  stepsUsingTemplate(projectId: string, templateId: string): Promise<Array<{ id: string; name: string; enabled: boolean; stepId: string; stepName: string }>> {
    return this.db.rows(
      `SELECT w.id, w.name, w.enabled, s.id AS "stepId", s.name AS "stepName"
         FROM ${this.steps} s JOIN ${this.workflows} w ON w.id = s.workflow_id
        WHERE w.project_id = $1 AND s.template_id = $2
        ORDER BY w.created_at DESC, w.id, s.created_at`,
      [projectId, templateId],
    );
  }

  /**
   * The workflows naming an event (their EVENT trigger, a WAIT_FOR_EVENT step) or a custom field (a
   * CONDITION step on `contact.data.<field>` or a path below it, an UPDATE_CONTACT step setting it),
   * newest first, with where: `trigger`, `step "<name>"`.
   */
  referencing(projectId: string, ref: { kind: 'field' | 'event'; name: string }): Promise<Array<{ id: string; name: string; where: string[] }>> {
    return this.db.rows(
      `WITH refs AS (
         SELECT w.id, w.name, w.created_at, 'trigger' AS place FROM ${this.workflows} w
          WHERE w.project_id = $1 AND $2 = 'event' AND w.trigger_type = 'EVENT' AND w.trigger_config->>'eventName' = $3
         UNION ALL
         SELECT w.id, w.name, w.created_at, 'step "' || s.name || '"' FROM ${this.steps} s JOIN ${this.workflows} w ON w.id = s.workflow_id
          WHERE w.project_id = $1 AND (
                ($2 = 'event' AND s.type = 'WAIT_FOR_EVENT' AND s.config->>'eventName' = $3)
             OR ($2 = 'field' AND s.type = 'CONDITION' AND (s.config->>'field' = 'contact.data.' || $3 OR starts_with(s.config->>'field', 'contact.data.' || $3 || '.')))
             OR ($2 = 'field' AND s.type = 'UPDATE_CONTACT' AND jsonb_exists(coalesce(s.config->'data', '{}'::jsonb), $3)))
       )
       SELECT id, name, array_agg(DISTINCT place ORDER BY place) AS "where" FROM refs GROUP BY id, name, created_at ORDER BY created_at DESC, id`,
      [projectId, ref.kind, ref.name],
    );
  }

  /** SEND_EMAIL steps whose template sends from the domain. */
  async stepsUsingDomain(projectId: string, domainId: string): Promise<number> {
    const row = await this.db.one<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${this.steps} s
         JOIN ${this.workflows} w ON w.id = s.workflow_id
         JOIN ${this.db.table('templates')} t ON t.id = s.template_id
        WHERE w.project_id = $1 AND t.domain_id = $2`,
      [projectId, domainId],
    );
    return row!.n;
  }

  /**
   * Keys of the data of the project's latest tracked events (the newest `sample` events), with their
   * JSON type, how many of those events hold them and under which event names (at most 10).
   */
  eventDataKeys(projectId: string, sample: number): Promise<Array<{ key: string; type: string; count: number; events: string[] }>> {
    return this.db.rows(
      `SELECT f.key, jsonb_typeof(f.value) AS type, count(*)::int AS count, (array_agg(DISTINCT e.name))[1:10] AS events
         FROM (SELECT name, data FROM ${this.db.table('events')} WHERE project_id = $1 AND jsonb_typeof(data) = 'object' ORDER BY created_at DESC LIMIT $2) e
         CROSS JOIN LATERAL jsonb_each(e.data) f
        GROUP BY f.key, jsonb_typeof(f.value)
        ORDER BY count(*) DESC, f.key`,
      [projectId, sample],
    );
  }
}
