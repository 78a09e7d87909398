import type { Branch, StepConfig, StepType, TriggerConfig, TriggerType } from './step-config';

/** A workflow as the API returns it (`steps` and `transitions` on GET /workflows/:id). */
export interface Workflow {
  id: string;
  name: string;
  description: string | null;
  triggerType: TriggerType;
  triggerConfig: TriggerConfig;
  enabled: boolean;
  allowReentry: boolean;
  createdAt: Date;
  updatedAt: Date;
  steps?: Step[];
  transitions?: Transition[];
}

/** A step; a SEND_EMAIL step's `config.templateId` is its template (also a column with a foreign key). */
export interface Step {
  id: string;
  type: StepType;
  name: string;
  config: StepConfig;
}

export interface Transition {
  id: string;
  fromStepId: string;
  toStepId: string;
  /** Omitted (null in the row) for a plain transition. */
  branch?: Branch;
}

export interface WorkflowRow {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  trigger_type: TriggerType;
  trigger_config: TriggerConfig;
  enabled: boolean;
  allow_reentry: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface StepRow {
  id: string;
  workflow_id: string;
  type: StepType;
  name: string;
  config: Record<string, unknown>;
  template_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface TransitionRow {
  id: string;
  workflow_id: string;
  from_step_id: string;
  to_step_id: string;
  branch: Branch | null;
  created_at: Date;
}

export function toWorkflow(r: WorkflowRow, steps?: StepRow[], transitions?: TransitionRow[]): Workflow {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    triggerType: r.trigger_type,
    triggerConfig: r.trigger_config ?? {},
    enabled: r.enabled,
    allowReentry: r.allow_reentry,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    ...(steps ? { steps: steps.map(toStep) } : {}),
    ...(transitions ? { transitions: transitions.map(toTransition) } : {}),
  };
}

export function toStep(r: StepRow): Step {
  return { id: r.id, type: r.type, name: r.name, config: (r.config ?? {}) as unknown as StepConfig };
}

export function toTransition(r: TransitionRow): Transition {
  return { id: r.id, fromStepId: r.from_step_id, toStepId: r.to_step_id, ...(r.branch ? { branch: r.branch } : {}) };
}
