import type { FieldError } from '@platform/errors';
import { parseConditionField, validateStepConfig, type Branch, type StepType, type TriggerConfig, type TriggerType } from './step-config';

/**
 * The rules an enabled workflow's definition keeps (checked when it is enabled and on every change
 * while it is enabled). Pure: what needs I/O (segments, templates and their domains) comes in as
 * facts.
 *
 * - one entry: exactly one TRIGGER step, nothing leads into it, and it leads somewhere;
 * - no dangling step: every step is reachable from the TRIGGER;
 * - no cycle without a DELAY or WAIT_FOR_EVENT on it (a loop must wait, never spin);
 * - branches: a CONDITION step has both `yes` and `no`; `yes`/`no` leave CONDITION steps only,
 *   `timeout` WAIT_FOR_EVENT steps only; an EXIT step leads nowhere;
 * - every step config valid; a CONDITION on `email.<stepId>.*` names a SEND_EMAIL step before it;
 * - the trigger config complete: `eventName` for EVENT, an existing segment with tracked membership
 *   for SEGMENT_ENTRY / SEGMENT_EXIT;
 * - every SEND_EMAIL template exists and is on a verified domain.
 *
 * Errors name the step: `field` is `steps[<stepId>]` (or `triggerConfig…`), with a code and message.
 */

export interface GraphStep {
  id: string;
  type: StepType;
  name: string;
  config: unknown;
}

export interface GraphTransition {
  id: string;
  fromStepId: string;
  toStepId: string;
  branch: Branch | null;
}

export interface WorkflowGraph {
  triggerType: TriggerType;
  triggerConfig: TriggerConfig;
  steps: GraphStep[];
  transitions: GraphTransition[];
}

/** What the checks need to know about the world. */
export interface GraphFacts {
  /** Segments of the project by id (absent: no such segment). */
  segments: Map<string, { name: string; tracked: boolean }>;
  /** Templates of the project by id (absent: no such template), with the status of their domain. */
  templates: Map<string, { name: string; domain: string; domainVerified: boolean }>;
}

/** Which branches may leave a step of this type (null: a plain transition). */
export function allowedBranches(type: StepType): Array<Branch | null> {
  if (type === 'CONDITION') return ['yes', 'no'];
  if (type === 'WAIT_FOR_EVENT') return [null, 'timeout'];
  if (type === 'EXIT') return [];
  return [null];
}

const stepField = (id: string) => `steps[${id}]`;

export function validateGraph(graph: WorkflowGraph, facts: GraphFacts): FieldError[] {
  const errors: FieldError[] = [];
  const add = (field: string, code: string, message: string) => errors.push({ field, code, message });
  const byId = new Map(graph.steps.map((s) => [s.id, s]));
  const label = (s: GraphStep) => `${s.type} step "${s.name}"`;
  const out = new Map<string, GraphTransition[]>();
  const incoming = new Map<string, GraphTransition[]>();
  for (const t of graph.transitions) {
    out.set(t.fromStepId, [...(out.get(t.fromStepId) ?? []), t]);
    incoming.set(t.toStepId, [...(incoming.get(t.toStepId) ?? []), t]);
  }

  checkTrigger(graph, facts, add);

  const triggers = graph.steps.filter((s) => s.type === 'TRIGGER');
  if (triggers.length !== 1) {
    add('steps', triggers.length ? 'multiple_entries' : 'missing_entry', `a workflow has exactly one TRIGGER step (found ${triggers.length})`);
  }
  const entry = triggers[0];
  if (entry) {
    if (incoming.get(entry.id)?.length) add(stepField(entry.id), 'entry_has_incoming', 'no transition may lead into the TRIGGER step');
    if (!out.get(entry.id)?.length) add(stepField(entry.id), 'entry_leads_nowhere', 'the TRIGGER step leads nowhere: add a step and a transition from the trigger to it');
  }

  // Reachability from the entry.
  const reachable = new Set<string>();
  if (entry) {
    const queue = [entry.id];
    reachable.add(entry.id);
    while (queue.length) {
      for (const t of out.get(queue.shift()!) ?? []) {
        if (!reachable.has(t.toStepId) && byId.has(t.toStepId)) {
          reachable.add(t.toStepId);
          queue.push(t.toStepId);
        }
      }
    }
  }

  for (const step of graph.steps) {
    const field = stepField(step.id);
    if (entry && !reachable.has(step.id)) add(field, 'unreachable_step', `${label(step)} is not reachable from the trigger: add a transition leading to it, or delete it`);
    for (const e of validateStepConfig(step.type, step.config)) add(`${field}.${e.field}`, e.code, `${label(step)}: ${e.message}`);

    const branches = (out.get(step.id) ?? []).map((t) => t.branch);
    const allowed = allowedBranches(step.type);
    for (const b of branches) {
      if (!allowed.includes(b)) {
        add(field, 'invalid_branch', step.type === 'EXIT' ? `${label(step)} ends the execution: it has no next step` : `${label(step)} cannot have a transition with branch ${b ?? '(none)'}`);
      }
    }
    if (step.type === 'CONDITION') {
      for (const b of ['yes', 'no'] as const) if (!branches.includes(b)) add(field, 'missing_branch', `${label(step)} needs a "${b}" transition`);
    }
    if (step.type === 'SEND_EMAIL') checkTemplate(step, field, facts, add, label);
    if (step.type === 'CONDITION') checkMailFact(step, field, byId, incoming, add, label);
  }

  for (const cycle of cyclesWithoutWait(graph.steps, graph.transitions)) {
    const first = byId.get(cycle[0])!;
    const names = cycle.map((id) => `"${byId.get(id)!.name}"`).join(' → ');
    add(stepField(first.id), 'cycle_without_wait', `the steps ${names} form a loop without a DELAY or WAIT_FOR_EVENT step: add one to the loop, or remove a transition`);
  }
  return errors;
}

type Add = (field: string, code: string, message: string) => void;

function checkTrigger(graph: WorkflowGraph, facts: GraphFacts, add: Add): void {
  const c = graph.triggerConfig ?? {};
  if (graph.triggerType === 'EVENT') {
    if (!c.eventName) add('triggerConfig.eventName', 'required', 'an EVENT trigger needs triggerConfig.eventName (the tracked event that starts the workflow)');
  } else if (graph.triggerType === 'SEGMENT_ENTRY' || graph.triggerType === 'SEGMENT_EXIT') {
    if (!c.segmentId) add('triggerConfig.segmentId', 'required', `a ${graph.triggerType} trigger needs triggerConfig.segmentId`);
    else {
      const segment = facts.segments.get(c.segmentId);
      if (!segment) add('triggerConfig.segmentId', 'not_found', `no segment ${c.segmentId} in the project`);
      else if (!segment.tracked) add('triggerConfig.segmentId', 'segment_not_tracked', `segment "${segment.name}" does not track its membership: only DYNAMIC segments with trackMembership record entries and exits`);
    }
  }
}

function checkTemplate(step: GraphStep, field: string, facts: GraphFacts, add: Add, label: (s: GraphStep) => string): void {
  const templateId = (step.config as { templateId?: unknown } | null)?.templateId;
  if (typeof templateId !== 'string') return; // reported by the config check
  const template = facts.templates.get(templateId);
  if (!template) add(`${field}.config.templateId`, 'not_found', `${label(step)}: template ${templateId} does not exist`);
  else if (!template.domainVerified) add(`${field}.config.templateId`, 'domain_not_verified', `${label(step)}: template "${template.name}" sends from ${template.domain}, which is not a verified domain (verify it with GET /domains/{id}/verify)`);
}

/** `email.<stepId>.opened|clicked` must name a SEND_EMAIL step that comes before the condition. */
function checkMailFact(step: GraphStep, field: string, byId: Map<string, GraphStep>, incoming: Map<string, GraphTransition[]>, add: Add, label: (s: GraphStep) => string): void {
  const f = (step.config as { field?: unknown } | null)?.field;
  const parsed = typeof f === 'string' ? parseConditionField(f) : null;
  if (parsed?.kind !== 'mail') return;
  const target = byId.get(parsed.stepId);
  if (!target || target.type !== 'SEND_EMAIL') {
    add(`${field}.config.field`, 'unknown_step', `${label(step)}: ${f as string} names no SEND_EMAIL step of this workflow`);
    return;
  }
  // Walk backwards from the condition: the mail step must be an ancestor.
  const seen = new Set<string>([step.id]);
  const queue = [step.id];
  while (queue.length) {
    for (const t of incoming.get(queue.shift()!) ?? []) {
      if (t.fromStepId === target.id) return;
      if (!seen.has(t.fromStepId)) {
        seen.add(t.fromStepId);
        queue.push(t.fromStepId);
      }
    }
  }
  add(`${field}.config.field`, 'mail_step_not_before', `${label(step)}: SEND_EMAIL step "${target.name}" does not come before this condition, so its mail is never there to open or click`);
}

/**
 * The loops made only of steps that run at once (neither DELAY nor WAIT_FOR_EVENT): the strongly
 * connected components (Tarjan) of that subgraph with more than one step, or one step looping to
 * itself. Each is answered as its step ids in the order found.
 */
export function cyclesWithoutWait(steps: GraphStep[], transitions: GraphTransition[]): string[][] {
  const instant = new Set(steps.filter((s) => s.type !== 'DELAY' && s.type !== 'WAIT_FOR_EVENT').map((s) => s.id));
  const next = new Map<string, string[]>();
  for (const t of transitions) {
    if (instant.has(t.fromStepId) && instant.has(t.toStepId)) next.set(t.fromStepId, [...(next.get(t.fromStepId) ?? []), t.toStepId]);
  }
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  // Iterative Tarjan (a long chain of steps must not overflow the call stack).
  for (const root of instant) {
    if (index.has(root)) continue;
    const work: Array<{ id: string; i: number }> = [{ id: root, i: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length) {
      const frame = work[work.length - 1];
      const succ = next.get(frame.id) ?? [];
      if (frame.i < succ.length) {
        const w = succ[frame.i++];
        if (!index.has(w)) {
          index.set(w, counter);
          low.set(w, counter++);
          stack.push(w);
          onStack.add(w);
          work.push({ id: w, i: 0 });
        } else if (onStack.has(w)) {
          low.set(frame.id, Math.min(low.get(frame.id)!, index.get(w)!));
        }
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1].id;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.id)!));
      }
      if (low.get(frame.id) === index.get(frame.id)) {
        const component: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.push(w);
        } while (w !== frame.id);
        const selfLoop = component.length === 1 && (next.get(w) ?? []).includes(w);
        if (component.length > 1 || selfLoop) found.push(component.reverse());
      }
    }
  }
  return found;
}
