import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError, type FieldError } from '@platform/errors';
import { isDeepStrictEqual } from 'node:util';
import { DomainUsers } from '../domains/domain-users';
import { TemplateUsers } from '../templates/template-users';
import { References } from '../usage/references.service';
import { CheckWorkflow } from './check-workflow';
import { ExecutionsService } from './executions.service';
import { allowedBranches, type WorkflowGraph } from './graph';
import { validateStepConfig, validateTriggerConfig, type Branch, type StepType, type TriggerConfig, type TriggerType } from './step-config';
import { toStep, toTransition, toWorkflow, type Step, type StepRow, type Transition, type TransitionRow, type Workflow, type WorkflowRow } from './workflow';
import { WorkflowsRepository, type WorkflowPatch } from './workflows.repository';

export const workflowNotFound = () => new ApiError(404, 'WORKFLOW_NOT_FOUND', 'Workflow not found', { suggestion: 'List the project\'s workflows with GET /workflows.' });
export const stepNotFound = () => new ApiError(404, 'WORKFLOW_STEP_NOT_FOUND', 'Step not found in this workflow', { suggestion: 'GET /workflows/{id} lists the workflow\'s steps.' });
export const transitionNotFound = () => new ApiError(404, 'WORKFLOW_TRANSITION_NOT_FOUND', 'Transition not found in this workflow', { suggestion: 'GET /workflows/{id} lists the workflow\'s transitions.' });

const invalid = (message: string, errors: FieldError[], suggestion: string) => new ApiError(422, 'VALIDATION_ERROR', message, { errors, suggestion });

const RESTRUCTURE = 'Fix the steps named in error.errors; to restructure an enabled workflow in several edits, disable it (PATCH {"enabled": false}), edit, then enable it again.';

export interface CreateWorkflowInput {
  name: string;
  description?: string | null;
  allowReentry?: boolean;
  triggerConfig?: TriggerConfig;
}

export interface StepInput {
  type: StepType;
  name?: string;
  config?: Record<string, unknown>;
}

const DEFAULT_NAMES: Record<StepType, string> = {
  TRIGGER: 'Trigger',
  SEND_EMAIL: 'Send email',
  DELAY: 'Delay',
  WAIT_FOR_EVENT: 'Wait for event',
  CONDITION: 'Condition',
  WEBHOOK: 'Webhook',
  UPDATE_CONTACT: 'Update contact',
  EXIT: 'Exit',
};

/**
 * Workflow definitions: workflows, steps and transitions of a project. Every change locks the
 * workflow row (edits of one workflow run one at a time); a change of an enabled workflow must
 * leave it valid (the enable rules of graph.ts, checked by CheckWorkflow), else 422 and nothing
 * changes. Steps that executions wait at are protected (409 `WORKFLOW_STEP_IN_USE`, or
 * `exitWaiting`); a workflow with active executions cannot be deleted.
 */
@Injectable()
export class WorkflowsService implements OnModuleInit {
  constructor(
    private readonly transactions: Transactions,
    private readonly workflows: WorkflowsRepository,
    private readonly executions: ExecutionsService,
    private readonly check: CheckWorkflow,
    private readonly templateUsers: TemplateUsers,
    private readonly domainUsers: DomainUsers,
    private readonly references: References,
  ) {}

  /** Templates and domains count workflow steps in their usage and delete rules; the field and event usage pages list the workflows naming them. */
  onModuleInit(): void {
    this.references.register('workflows', (projectId, ref) => this.workflows.referencing(projectId, ref));
    this.templateUsers.register((projectId, templateId) => this.stepsUsingTemplate(projectId, templateId));
    this.domainUsers.register((projectId, domainId) => this.stepsUsingDomain(projectId, domainId));
  }

  async list(projectId: string, page: number, pageSize: number, enabled?: boolean) {
    const { rows, total } = await this.workflows.page(projectId, pageSize, (page - 1) * pageSize, enabled);
    return { data: rows.map((r) => toWorkflow(r)), total, page, pageSize, totalPages: Math.ceil(total / pageSize) };
  }

  /** The workflow's row (`lock`: FOR UPDATE, inside a transaction); 404 WORKFLOW_NOT_FOUND. */
  async row(projectId: string, id: string, lock = false): Promise<WorkflowRow> {
    const row = await this.workflows.findById(projectId, id, lock);
    if (!row) throw workflowNotFound();
    return row;
  }

  /** The workflow with its steps and transitions. */
  async get(projectId: string, id: string): Promise<Workflow> {
    const row = await this.row(projectId, id);
    const [steps, transitions] = await Promise.all([this.workflows.stepsOf(id), this.workflows.transitionsOf(id)]);
    return toWorkflow(row, steps, transitions);
  }

  create(projectId: string, input: CreateWorkflowInput): Promise<Workflow> {
    const triggerConfig = input.triggerConfig ?? {};
    const errors = validateTriggerConfig('EVENT', triggerConfig);
    if (errors.length) throw invalid('The trigger config does not fit an EVENT trigger', errors, 'A new workflow has an EVENT trigger: triggerConfig is {"eventName": "<tracked event>"} or omitted.');
    return this.transactions.transaction(async () => {
      const row = await this.workflows.insert(projectId, { name: input.name, description: input.description ?? null, allowReentry: input.allowReentry ?? false });
      const withConfig = Object.keys(triggerConfig).length ? await this.workflows.update(row.id, { triggerConfig }) : row;
      const trigger = await this.workflows.insertStep(row.id, { type: 'TRIGGER', name: DEFAULT_NAMES.TRIGGER, config: {}, templateId: null });
      return toWorkflow(withConfig, [trigger], []);
    });
  }

  /**
   * Metadata, trigger, `enabled`, `allowReentry`. A new `triggerType` without `triggerConfig` resets
   * the config to `{}` (the old one belongs to another type). Enabling, and any change while
   * enabled, checks the whole definition.
   */
  update(projectId: string, id: string, patch: WorkflowPatch): Promise<Workflow> {
    return this.transactions.transaction(async () => {
      const row = await this.row(projectId, id, true);
      const triggerType: TriggerType = patch.triggerType ?? row.trigger_type;
      let triggerConfig: TriggerConfig | undefined = patch.triggerConfig;
      if (triggerConfig === undefined && patch.triggerType !== undefined && patch.triggerType !== row.trigger_type) triggerConfig = {};
      if (patch.triggerConfig !== undefined) {
        const errors = validateTriggerConfig(triggerType, patch.triggerConfig);
        if (errors.length) throw invalid(`The trigger config does not fit a ${triggerType} trigger`, errors, 'EVENT: {"eventName"}; SEGMENT_ENTRY / SEGMENT_EXIT: {"segmentId"}; MANUAL: {}.');
        if (triggerConfig?.segmentId) triggerConfig = { segmentId: triggerConfig.segmentId.toLowerCase() };
      }
      const enabled = patch.enabled ?? row.enabled;
      const next = { ...row, trigger_type: triggerType, trigger_config: triggerConfig ?? row.trigger_config, enabled };
      const [steps, transitions] = await Promise.all([this.workflows.stepsOf(id), this.workflows.transitionsOf(id)]);
      const triggerChanged = triggerType !== row.trigger_type || (triggerConfig !== undefined && !isDeepStrictEqual(triggerConfig, row.trigger_config));
      if (enabled && (!row.enabled || triggerChanged)) await this.requireValid(projectId, next, steps, transitions, !row.enabled);
      else if (triggerConfig?.segmentId) await this.requireSegment(projectId, next, steps, transitions);
      const saved = await this.workflows.update(id, { ...patch, triggerType, triggerConfig });
      return toWorkflow(saved, steps, transitions);
    });
  }

  /** 409 while executions run or wait (cancel them first). */
  remove(projectId: string, id: string): Promise<void> {
    return this.transactions.transaction(async () => {
      await this.row(projectId, id, true);
      const active = await this.executions.countActive(id);
      if (active > 0) {
        throw new ApiError(409, 'WORKFLOW_HAS_ACTIVE_EXECUTIONS', `The workflow has ${active} running or waiting execution(s)`, {
          suggestion: 'Cancel them with POST /workflows/{id}/executions/cancel-all (or wait until they end), then delete the workflow.',
        });
      }
      await this.workflows.delete(id);
    });
  }

  addStep(projectId: string, workflowId: string, input: StepInput): Promise<Step> {
    return this.transactions.transaction(async () => {
      const row = await this.row(projectId, workflowId, true);
      const config = await this.checkedConfig(projectId, input.type, input.config ?? {});
      const step = await this.workflows.insertStep(workflowId, { type: input.type, name: input.name ?? DEFAULT_NAMES[input.type], config, templateId: templateOf(input.type, config) });
      await this.afterChange(projectId, row);
      return toStep(step);
    });
  }

  /**
   * Name and config (the config is replaced whole; the type never changes). A config change of a
   * step that executions wait at: 409 `WORKFLOW_STEP_IN_USE`, or with `exitWaiting` they exit.
   */
  updateStep(projectId: string, workflowId: string, stepId: string, patch: { name?: string; config?: Record<string, unknown> }, exitWaiting: boolean): Promise<Step> {
    return this.transactions.transaction(async () => {
      const row = await this.row(projectId, workflowId, true);
      const step = await this.step(workflowId, stepId);
      const config = patch.config === undefined ? step.config : await this.checkedConfig(projectId, step.type, patch.config);
      if (!isDeepStrictEqual(config, step.config)) await this.releaseWaiting(step, exitWaiting, 'step_changed', 'changed');
      const saved = await this.workflows.updateStep(stepId, { name: patch.name ?? step.name, config, templateId: templateOf(step.type, config) });
      await this.afterChange(projectId, row);
      return toStep(saved);
    });
  }

  /**
   * Deletes a step and its transitions; the TRIGGER step stays. `splice`: the transitions into the
   * step are redirected to the step's one next step (422 when it has several: a CONDITION's yes and
   * no, a WAIT_FOR_EVENT's timeout branch).
   */
  removeStep(projectId: string, workflowId: string, stepId: string, opts: { splice: boolean; exitWaiting: boolean }): Promise<void> {
    return this.transactions.transaction(async () => {
      const row = await this.row(projectId, workflowId, true);
      const step = await this.step(workflowId, stepId);
      if (step.type === 'TRIGGER') {
        throw new ApiError(409, 'WORKFLOW_TRIGGER_STEP', 'The TRIGGER step is the workflow\'s entry and cannot be deleted', { suggestion: 'Change the trigger with PATCH /workflows/{id} (triggerType, triggerConfig), or delete the workflow.' });
      }
      if (opts.splice) {
        const outgoing = (await this.workflows.transitionsOf(workflowId)).filter((t) => t.from_step_id === stepId && t.to_step_id !== stepId);
        if (outgoing.length > 1) {
          throw invalid(`Step "${step.name}" has ${outgoing.length} outgoing branches: splice cannot choose which one its incoming transitions should lead to`, [
            { field: `steps[${stepId}]`, code: 'splice_ambiguous', message: `${step.type} step "${step.name}" leads to ${outgoing.length} steps (${outgoing.map((t) => t.branch ?? 'next').join(', ')})` },
          ], 'Delete the transitions of the branches you do not keep (DELETE /workflows/{id}/transitions/{transitionId}) and splice again, or delete without splice and reconnect the steps yourself.');
        }
        if (outgoing.length === 1) await this.workflows.redirectIncoming(stepId, outgoing[0].to_step_id);
      }
      await this.releaseWaiting(step, opts.exitWaiting, 'step_deleted', 'deleted');
      await this.workflows.deleteStep(stepId);
      await this.afterChange(projectId, row);
    });
  }

  /**
   * A transition between two steps of the workflow. `branch`: `yes` or `no` (required) out of a
   * CONDITION step, optionally `timeout` out of a WAIT_FOR_EVENT step, nothing out of any other
   * step; nothing leads into the TRIGGER step and nothing out of an EXIT step; one transition per
   * step and branch (409 `WORKFLOW_TRANSITION_EXISTS`).
   */
  addTransition(projectId: string, workflowId: string, input: { fromStepId: string; toStepId: string; branch?: Branch }): Promise<Transition> {
    return this.transactions.transaction(async () => {
      const row = await this.row(projectId, workflowId, true);
      const [from, to] = await Promise.all([this.workflows.findStep(workflowId, input.fromStepId), this.workflows.findStep(workflowId, input.toStepId)]);
      const errors: FieldError[] = [];
      if (!from) errors.push({ field: 'fromStepId', code: 'not_found', message: `no step ${input.fromStepId} in this workflow` });
      if (!to) errors.push({ field: 'toStepId', code: 'not_found', message: `no step ${input.toStepId} in this workflow` });
      if (to?.type === 'TRIGGER') errors.push({ field: 'toStepId', code: 'entry_has_incoming', message: 'nothing may lead into the TRIGGER step (the workflow\'s entry)' });
      const branch = input.branch ?? null;
      if (from && !allowedBranches(from.type).includes(branch)) errors.push({ field: 'branch', code: 'invalid_branch', message: branchRule(from, branch) });
      if (errors.length) throw invalid('The transition breaks the workflow\'s rules', errors, 'Transitions connect two steps of this workflow; `branch` is yes or no out of a CONDITION step, optionally timeout out of a WAIT_FOR_EVENT step, and absent elsewhere.');
      const saved = await this.workflows.insertTransition(workflowId, { fromStepId: from!.id, toStepId: to!.id, branch });
      if (!saved) {
        throw new ApiError(409, 'WORKFLOW_TRANSITION_EXISTS', `Step "${from!.name}" already has a ${branch ? `"${branch}" ` : ''}transition`, {
          suggestion: 'A step has one transition per branch: delete the existing one (DELETE /workflows/{id}/transitions/{transitionId}) first.',
        });
      }
      await this.afterChange(projectId, row);
      return toTransition(saved);
    });
  }

  removeTransition(projectId: string, workflowId: string, transitionId: string): Promise<void> {
    return this.transactions.transaction(async () => {
      const row = await this.row(projectId, workflowId, true);
      const transition = await this.workflows.findTransition(workflowId, transitionId);
      if (!transition) throw transitionNotFound();
      await this.workflows.deleteTransition(transitionId);
      await this.afterChange(projectId, row);
    });
  }

  /** Custom keys of the data of the project's latest tracked events (what `event.<key>` reads). */
  eventDataKeys(projectId: string, sample: number) {
    return this.workflows.eventDataKeys(projectId, sample);
  }

  /** SEND_EMAIL steps of the workflow (the mail facts `email.<stepId>.opened|clicked` a CONDITION reads). */
  async mailSteps(projectId: string, workflowId: string): Promise<Step[]> {
    await this.row(projectId, workflowId);
    return (await this.workflows.stepsOf(workflowId)).filter((s) => s.type === 'SEND_EMAIL').map(toStep);
  }

  /** Workflow steps sending the template: `GET /templates/:id/usage` and the template's delete rule. */
  async stepsUsingTemplate(projectId: string, templateId: string) {
    return this.workflows.stepsUsingTemplate(projectId, templateId);
  }

  /** How many workflow steps send from the domain (through their template): the domain's delete rule. */
  stepsUsingDomain(projectId: string, domainId: string): Promise<number> {
    return this.workflows.stepsUsingDomain(projectId, domainId);
  }

  private async step(workflowId: string, stepId: string): Promise<StepRow> {
    const step = await this.workflows.findStep(workflowId, stepId);
    if (!step) throw stepNotFound();
    return step;
  }

  /** The config checked for the type; a SEND_EMAIL template must be one of the project (locked: it cannot be deleted meanwhile). */
  private async checkedConfig(projectId: string, type: StepType, input: Record<string, unknown>): Promise<Record<string, unknown>> {
    const errors = validateStepConfig(type, input);
    if (errors.length) throw invalid(`The config does not fit a ${type} step`, errors, 'See the step types in the Workflows section of the API description (POST /workflows/{id}/steps).');
    if (type === 'SEND_EMAIL') {
      const templateId = (input.templateId as string).toLowerCase();
      await this.check.lockTemplate(projectId, templateId);
      return { ...input, templateId };
    }
    return input;
  }

  /** Executions waiting at the step: 409 unless `exitWaiting`, then they exit with the reason. */
  private async releaseWaiting(step: StepRow, exitWaiting: boolean, reason: string, what: string): Promise<void> {
    const waiting = await this.executions.countWaitingAt(step.id);
    if (waiting === 0) return;
    if (!exitWaiting) {
      throw new ApiError(409, 'WORKFLOW_STEP_IN_USE', `${waiting} execution(s) are waiting at step "${step.name}"; it cannot be ${what} under them`, {
        suggestion: `Retry with ?exitWaiting=true to end those ${waiting} execution(s) (status EXITED, exitReason "${reason}"), or wait until they move on.`,
      });
    }
    await this.executions.exitWaitingAt(step.id, reason);
  }

  /** After a change of steps or transitions: an enabled workflow must still be valid; the workflow is marked updated. */
  private async afterChange(projectId: string, row: WorkflowRow): Promise<void> {
    if (row.enabled) {
      const [steps, transitions] = await Promise.all([this.workflows.stepsOf(row.id), this.workflows.transitionsOf(row.id)]);
      await this.requireValid(projectId, row, steps, transitions, false);
    }
    await this.workflows.touch(row.id);
  }

  private async requireValid(projectId: string, row: WorkflowRow, steps: StepRow[], transitions: TransitionRow[], enabling: boolean): Promise<void> {
    const errors = await this.check.execute(projectId, graphOf(row, steps, transitions));
    if (errors.length === 0) return;
    const what = enabling ? 'The workflow cannot be enabled' : 'The change would leave the enabled workflow invalid';
    throw invalid(`${what}: ${errors.length} problem(s); the first: ${errors[0].message}`, errors, RESTRUCTURE);
  }

  /** A segment named in the trigger config must exist (tracked membership is checked when enabling). */
  private async requireSegment(projectId: string, row: WorkflowRow, steps: StepRow[], transitions: TransitionRow[]): Promise<void> {
    const facts = await this.check.facts(projectId, graphOf(row, steps, transitions));
    if (!facts.segments.has(row.trigger_config.segmentId!)) {
      throw invalid('The trigger names no segment of the project', [{ field: 'triggerConfig.segmentId', code: 'not_found', message: `no segment ${row.trigger_config.segmentId} in the project` }], 'List the segments with GET /segments.');
    }
  }
}

function graphOf(row: WorkflowRow, steps: StepRow[], transitions: TransitionRow[]): WorkflowGraph {
  return {
    triggerType: row.trigger_type,
    triggerConfig: row.trigger_config ?? {},
    steps: steps.map((s) => ({ id: s.id, type: s.type, name: s.name, config: s.config })),
    transitions: transitions.map((t) => ({ id: t.id, fromStepId: t.from_step_id, toStepId: t.to_step_id, branch: t.branch })),
  };
}

function templateOf(type: StepType, config: Record<string, unknown>): string | null {
  return type === 'SEND_EMAIL' ? (config.templateId as string) : null;
}

function branchRule(from: StepRow, branch: Branch | null): string {
  const name = `${from.type} step "${from.name}"`;
  if (from.type === 'CONDITION') return `a transition out of ${name} needs branch "yes" or "no"`;
  if (from.type === 'WAIT_FOR_EVENT') return `a transition out of ${name} has no branch (the event came) or branch "timeout"`;
  if (from.type === 'EXIT') return `${name} ends the execution: nothing follows it`;
  return `a transition out of ${name} has no branch (got "${branch}")`;
}
