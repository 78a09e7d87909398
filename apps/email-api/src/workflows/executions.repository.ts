import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { Keyset } from '../common/pagination';
import { type Execution, type ExecutionStatus, type ExecutionTrigger, type StepRun, type StepRunStatus } from './execution';
import type { MailFact, StepType } from './step-config';

export interface ExecutionRow {
  id: string;
  project_id: string;
  workflow_id: string;
  contact_id: string;
  status: ExecutionStatus;
  current_step_id: string | null;
  step_seq: number;
  context: Record<string, unknown>;
  trigger: ExecutionTrigger;
  start_key: string;
  exit_reason: string | null;
  error: string | null;
  due_at: Date | null;
  wait_event: string | null;
  claimed_until: Date | null;
  claim_token: string | null;
  created_at: Date;
  updated_at: Date;
  ended_at: Date | null;
}

interface StepRunRow {
  id: string;
  execution_id: string;
  seq: number;
  step_id: string | null;
  step_type: StepType;
  step_name: string;
  status: StepRunStatus;
  input: unknown;
  output: unknown;
  error: string | null;
  attempts: number;
  started_at: Date;
  completed_at: Date | null;
}

/** An event that may start workflows (`startForEvents`). */
export interface TriggeringEvent {
  projectId: string;
  contactId: string;
  eventName: string;
  eventId: string;
  data: Record<string, unknown>;
  segment: { id: string; move: 'entry' | 'exit' } | null;
}

/** A step of a workflow as the engine runs it. */
export interface StepDef {
  id: string;
  workflowId: string;
  type: StepType;
  name: string;
  config: Record<string, unknown>;
}

/** A workflow's graph: its steps and, per step, its transitions by branch ('' for none). */
export interface WorkflowGraph {
  steps: Map<string, StepDef>;
  next: Map<string, Map<string, string>>;
}

export interface EngineContact {
  id: string;
  email: string;
  subscribed: boolean;
  data: Record<string, unknown>;
}

/** A step run as the engine writes it. */
export interface RunWrite {
  step: { id: string | null; type: StepType; name: string };
  status: StepRunStatus;
  input?: unknown;
  output?: unknown;
  error?: string | null;
  /** True when this write ends an attempt at the step (counts in `attempts`). */
  attempt: boolean;
}

/** Where the execution goes with the same write. */
export interface MoveWrite {
  status: ExecutionStatus;
  /** The step it is at next (the same step for a wait or a retry). */
  stepId: string | null;
  /** True when it moves on to a new step run (step_seq + 1). */
  nextSeq: boolean;
  dueAt: Date | 'now' | null;
  waitEvent?: string | null;
  exitReason?: string | null;
  error?: string | null;
  /** The claiming replica goes on with it at once: its lease is extended (by `leaseSeconds`) instead of released. */
  keepLease: boolean;
  leaseSeconds?: number;
}

export const toExecution = (r: ExecutionRow): Execution => ({
  id: r.id,
  workflowId: r.workflow_id,
  contactId: r.contact_id,
  status: r.status,
  currentStepId: r.current_step_id,
  context: r.context ?? {},
  trigger: r.trigger,
  exitReason: r.exit_reason,
  error: r.error,
  resumeAt: r.status === 'WAITING' ? r.due_at : null,
  waitingFor: r.status === 'WAITING' ? r.wait_event : null,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  endedAt: r.ended_at,
});

const toStepRun = (r: StepRunRow): StepRun => ({
  id: r.id,
  seq: r.seq,
  stepId: r.step_id,
  stepType: r.step_type,
  stepName: r.step_name,
  status: r.status,
  input: r.input,
  output: r.output,
  error: r.error,
  attempts: r.attempts,
  startedAt: r.started_at,
  completedAt: r.completed_at,
});

/**
 * Executions and their step runs (`workflow_executions`, `workflow_step_runs`), and the engine's
 * reads of the definitions (same feature). Every move of an execution is one statement that checks,
 * under the row lock, that the execution is still at the step run the writer saw (`step_seq`),
 * still active and, for the claiming replica, still its claim (`claim_token`): a step run
 * completes once whichever replica, event or cancel races for it.
 */
@Injectable()
export class ExecutionsRepository {
  constructor(private readonly db: Database) {}

  private get executions(): string {
    return this.db.table('workflow_executions');
  }

  private get runs(): string {
    return this.db.table('workflow_step_runs');
  }

  // ── counts the definition API and other features ask for ─────────────────────────────────────

  async countActive(workflowId: string): Promise<number> {
    const row = await this.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.executions} WHERE workflow_id = $1 AND status IN ('RUNNING', 'WAITING')`, [workflowId]);
    return row!.n;
  }

  async countWaitingAt(stepId: string): Promise<number> {
    const row = await this.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.executions} WHERE current_step_id = $1 AND status IN ('RUNNING', 'WAITING')`, [stepId]);
    return row!.n;
  }

  /** Active executions of enabled or disabled workflows whose SEGMENT_ENTRY/EXIT trigger names the segment. */
  async countActiveUsingSegment(segmentId: string): Promise<{ executions: number; workflows: string[] }> {
    const rows = await this.db.rows<{ name: string; n: number }>(
      `SELECT w.name, count(*)::int AS n FROM ${this.db.table('workflows')} w JOIN ${this.executions} e ON e.workflow_id = w.id AND e.status IN ('RUNNING', 'WAITING')
        WHERE w.trigger_type IN ('SEGMENT_ENTRY', 'SEGMENT_EXIT') AND w.trigger_config->>'segmentId' = $1 GROUP BY w.id, w.name ORDER BY w.name`,
      [segmentId],
    );
    return { executions: rows.reduce((n, r) => n + r.n, 0), workflows: rows.map((r) => r.name) };
  }

  /**
   * Ends the active executions at this step (or of this workflow, or this one): status `to` with the reason (the error of a FAILED one), the
   * current step run (waiting or pending a retry) SKIPPED. Answers the executions ended.
   */
  async endActive(filter: { stepId?: string; workflowId?: string; executionId?: string }, to: 'EXITED' | 'CANCELLED' | 'FAILED', reason: string): Promise<ExecutionRow[]> {
    const where = filter.executionId ? 'e.id = $1' : filter.stepId ? 'e.current_step_id = $1' : 'e.workflow_id = $1';
    const key = filter.executionId ?? filter.stepId ?? filter.workflowId;
    return this.db.rows<ExecutionRow>(
      `WITH ended AS (
         UPDATE ${this.executions} e SET status = $2, exit_reason = CASE WHEN $2 = 'FAILED' THEN NULL ELSE $3 END, error = CASE WHEN $2 = 'FAILED' THEN $3 END, due_at = NULL, wait_event = NULL, claimed_until = NULL, claim_token = NULL,
                ended_at = now(), updated_at = now()
          WHERE ${where} AND e.status IN ('RUNNING', 'WAITING') RETURNING e.*),
       skipped AS (
         UPDATE ${this.runs} r SET status = 'SKIPPED', completed_at = now(), output = jsonb_build_object('endedBy', $2::text, 'reason', $3::text)
           FROM ended WHERE r.execution_id = ended.id AND r.seq = ended.step_seq AND r.status IN ('WAITING', 'PENDING', 'RUNNING'))
       SELECT * FROM ended`,
      [key, to, reason],
    );
  }

  // ── starts ──────────────────────────────────────────────────────────────────────────────────

  /**
   * A start's statement around `starts` (a SELECT of project_id, workflow_id, contact_id, context,
   * trigger, start_key and the workflow's TRIGGER step `t`): the TRIGGER step's run (seq 1,
   * COMPLETED, its output the trigger, as the engine would write it) is written with the execution,
   * which starts at the step after the trigger (or COMPLETED when there is none). Answers the new
   * executions: their ids (`answer` 'ids', the statement of every triggering event, planned once per
   * connection) or their rows.
   */
  private start(starts: string, answer: 'ids' | 'rows'): string {
    return `WITH started AS (
         INSERT INTO ${this.executions} (project_id, workflow_id, contact_id, status, current_step_id, step_seq, context, trigger, start_key, due_at, ended_at)
         SELECT s.project_id, s.workflow_id, s.contact_id, CASE WHEN n.to_step_id IS NULL THEN 'COMPLETED' ELSE 'RUNNING' END, coalesce(n.to_step_id, s.trigger_step_id),
                CASE WHEN n.to_step_id IS NULL THEN 1 ELSE 2 END, s.context, s.trigger, s.start_key,
                CASE WHEN n.to_step_id IS NULL THEN NULL ELSE now() END, CASE WHEN n.to_step_id IS NULL THEN now() END
           FROM (${starts}) s
           LEFT JOIN ${this.db.table('workflow_transitions')} n ON n.from_step_id = s.trigger_step_id AND n.branch IS NULL
         ON CONFLICT DO NOTHING RETURNING *),
       run AS (
         INSERT INTO ${this.runs} (execution_id, seq, step_id, step_type, step_name, status, output, attempts, completed_at)
         SELECT e.id, 1, t.id, 'TRIGGER', t.name, 'COMPLETED', e.trigger, 1, now()
           FROM started e JOIN ${this.db.table('workflow_steps')} t ON t.workflow_id = e.workflow_id AND t.type = 'TRIGGER')
       SELECT ${answer === 'ids' ? 'id' : '*'} FROM started`;
  }

  /**
   * Starts every enabled workflow of the project whose trigger matches an event, for its contact,
   * for a list of events in one statement (with each TRIGGER step's run, see `start`): `allowReentry`
   * false → not if the contact ever had an execution of it; true → not while one is active (the
   * partial unique index); of the events of the list for the same workflow and contact, the first
   * alone starts it; the start key (the event id) makes a redelivered event start nothing twice.
   * Answers the new executions' ids.
   */
  async startForEvents(events: TriggeringEvent[]): Promise<string[]> {
    if (!events.length) return [];
    const list = events.map((e, n) => ({ project_id: e.projectId, contact_id: e.contactId, event_name: e.eventName, event_id: e.eventId, data: e.data, move: e.segment?.move ?? null, segment_id: e.segment?.id ?? null, n }));
    const rows = await this.db.rows<{ id: string }>(
      this.start(
        `SELECT DISTINCT ON (w.id, c.id) w.project_id, w.id AS workflow_id, c.id AS contact_id, '{}'::jsonb AS context, t.id AS trigger_step_id,
                jsonb_build_object('type', w.trigger_type, 'eventName', ev.event_name, 'eventId', ev.event_id, 'data', ev.data) AS trigger, ev.event_id AS start_key
           FROM jsonb_to_recordset($1::jsonb) AS ev(project_id uuid, contact_id text, event_name text, event_id text, data jsonb, move text, segment_id text, n int)
           JOIN ${this.db.table('workflows')} w ON w.project_id = ev.project_id AND w.enabled
            AND ((w.trigger_type = 'EVENT' AND w.trigger_config->>'eventName' = ev.event_name)
              OR (w.trigger_type = 'SEGMENT_ENTRY' AND ev.move = 'entry' AND w.trigger_config->>'segmentId' = ev.segment_id)
              OR (w.trigger_type = 'SEGMENT_EXIT' AND ev.move = 'exit' AND w.trigger_config->>'segmentId' = ev.segment_id))
           JOIN ${this.db.table('workflow_steps')} t ON t.workflow_id = w.id AND t.type = 'TRIGGER'
           JOIN ${this.db.table('contacts')} c ON c.id = ev.contact_id AND c.project_id = w.project_id
          WHERE w.allow_reentry OR NOT EXISTS (SELECT 1 FROM ${this.executions} x WHERE x.contact_id = c.id AND x.workflow_id = w.id)
          ORDER BY w.id, c.id, ev.n`,
        'ids',
      ),
      [JSON.stringify(list)],
    );
    return rows.map((r) => r.id);
  }

  /** Which of these events (their indexes) some execution of their contact waits for (WAIT_FOR_EVENT of that name): the ones `resumeWaiting` has to look at. */
  async awaited(events: Array<{ projectId: string; contactId: string; eventName: string }>): Promise<Set<number>> {
    if (!events.length) return new Set();
    const list = events.map((e, n) => ({ project_id: e.projectId, contact_id: e.contactId, event_name: e.eventName, n }));
    const rows = await this.db.rows<{ n: number }>(
      `SELECT ev.n FROM jsonb_to_recordset($1::jsonb) AS ev(project_id uuid, contact_id text, event_name text, n int)
        WHERE EXISTS (SELECT 1 FROM ${this.executions} e WHERE e.project_id = ev.project_id AND e.contact_id = ev.contact_id AND e.wait_event = ev.event_name AND e.status = 'WAITING')`,
      [JSON.stringify(list)],
    );
    return new Set(rows.map((r) => r.n));
  }

  /** A manual start (with its TRIGGER step's run, see `start`); null when re-entry rules refuse it (see startForEvents). */
  async startManual(workflowId: string, contactId: string, context: Record<string, unknown>, startKey: string): Promise<ExecutionRow | null> {
    return this.db.one<ExecutionRow>(
      this.start(
        `SELECT w.project_id, w.id AS workflow_id, $2::text AS contact_id, $3::jsonb AS context, t.id AS trigger_step_id,
                jsonb_build_object('type', 'MANUAL', 'data', $3::jsonb) AS trigger, $4::text AS start_key
           FROM ${this.db.table('workflows')} w JOIN ${this.db.table('workflow_steps')} t ON t.workflow_id = w.id AND t.type = 'TRIGGER'
          WHERE w.id = $1 AND (w.allow_reentry OR NOT EXISTS (SELECT 1 FROM ${this.executions} x WHERE x.contact_id = $2 AND x.workflow_id = w.id))`,
        'rows',
      ),
      [workflowId, contactId, JSON.stringify(context), startKey],
    );
  }

  /** The workflow's start settings, when it is the project's. */
  async findWorkflow(projectId: string, workflowId: string): Promise<{ id: string; enabled: boolean; allowReentry: boolean; name: string } | null> {
    const row = await this.db.one<{ id: string; enabled: boolean; allow_reentry: boolean; name: string }>(
      `SELECT id, enabled, allow_reentry, name FROM ${this.db.table('workflows')} WHERE id = $1 AND project_id = $2`,
      [workflowId, projectId],
    );
    return row ? { id: row.id, enabled: row.enabled, allowReentry: row.allow_reentry, name: row.name } : null;
  }

  /** The contact of the project with this id or (normalized) email. */
  async findContact(projectId: string, by: { id?: string; email?: string }): Promise<EngineContact | null> {
    return this.db.one<EngineContact>(
      `SELECT id, email, subscribed, data FROM ${this.db.table('contacts')} WHERE project_id = $1 AND ${by.id ? 'id = $2' : 'email = $2'}`,
      [projectId, by.id ?? by.email],
    );
  }

  // ── the engine ──────────────────────────────────────────────────────────────────────────────

  /** Due executions (running, a DELAY ended, a WAIT_FOR_EVENT timed out), leased to this replica with a fresh claim token. */
  claimDue(limit: number, leaseSeconds: number): Promise<ExecutionRow[]> {
    return this.db.claimDue<ExecutionRow>({
      table: this.executions,
      where: `status IN ('RUNNING', 'WAITING') AND due_at <= now()`,
      orderBy: 'due_at ASC',
      limit,
      lease: { column: 'claimed_until', seconds: leaseSeconds },
      set: 'claim_token = gen_random_uuid()',
    });
  }

  /** The graphs of these workflows. */
  async graphs(workflowIds: string[]): Promise<Map<string, WorkflowGraph>> {
    const [steps, transitions] = await Promise.all([
      this.db.rows<{ id: string; workflow_id: string; type: StepType; name: string; config: Record<string, unknown>; template_id: string | null }>(
        `SELECT id, workflow_id, type, name, config, template_id FROM ${this.db.table('workflow_steps')} WHERE workflow_id = ANY($1::uuid[])`,
        [workflowIds],
      ),
      this.db.rows<{ workflow_id: string; from_step_id: string; to_step_id: string; branch: string | null }>(
        `SELECT workflow_id, from_step_id, to_step_id, branch FROM ${this.db.table('workflow_transitions')} WHERE workflow_id = ANY($1::uuid[])`,
        [workflowIds],
      ),
    ]);
    const out = new Map<string, WorkflowGraph>(workflowIds.map((id) => [id, { steps: new Map(), next: new Map() }]));
    for (const s of steps) {
      const config = s.type === 'SEND_EMAIL' && s.template_id ? { ...s.config, templateId: s.template_id } : s.config;
      out.get(s.workflow_id)?.steps.set(s.id, { id: s.id, workflowId: s.workflow_id, type: s.type, name: s.name, config: config ?? {} });
    }
    for (const t of transitions) {
      const graph = out.get(t.workflow_id)!;
      const from = graph.next.get(t.from_step_id) ?? new Map<string, string>();
      from.set(t.branch ?? '', t.to_step_id);
      graph.next.set(t.from_step_id, from);
    }
    return out;
  }

  async contacts(ids: string[]): Promise<Map<string, EngineContact>> {
    const rows = await this.db.rows<EngineContact>(`SELECT id, email, subscribed, data FROM ${this.db.table('contacts')} WHERE id = ANY($1::text[])`, [ids]);
    return new Map(rows.map((r) => [r.id, { ...r, data: r.data ?? {} }]));
  }

  /** The step runs the executions are at (a WAITING step, a failed attempt pending its retry), keyed by execution id. */
  async currentRuns(executions: Array<{ id: string; step_seq: number }>): Promise<Map<string, StepRun>> {
    if (!executions.length) return new Map();
    const rows = await this.db.rows<StepRunRow>(
      `SELECT r.* FROM ${this.runs} r JOIN unnest($1::uuid[], $2::int[]) AS x(id, seq) ON r.execution_id = x.id AND r.seq = x.seq`,
      [executions.map((e) => e.id), executions.map((e) => e.step_seq)],
    );
    return new Map(rows.map((r) => [r.execution_id, toStepRun(r)]));
  }

  /**
   * Writes the step run `(execution, seq)` and moves the execution, in one statement that first
   * checks (row lock) that the execution is still at `seq`, active and — with a token — this
   * replica's claim. Answers the run's id and attempts, or null when the check failed (nothing written).
   */
  async advance(executionId: string, seq: number, token: string | null, run: RunWrite, move: MoveWrite): Promise<{ runId: string; attempts: number } | null> {
    const finished = run.status === 'COMPLETED' || run.status === 'FAILED' || run.status === 'SKIPPED';
    const ended = ['COMPLETED', 'EXITED', 'FAILED', 'CANCELLED'].includes(move.status);
    const row = await this.db.one<{ id: string; attempts: number }>(
      `WITH e AS (
         SELECT id FROM ${this.executions}
          WHERE id = $1 AND step_seq = $2 AND status IN ('RUNNING', 'WAITING') AND ($3::uuid IS NULL OR claim_token = $3::uuid) FOR UPDATE),
       run AS (
         INSERT INTO ${this.runs} AS r (execution_id, seq, step_id, step_type, step_name, status, input, output, error, attempts, completed_at)
         SELECT e.id, $2, $4::uuid, $5, $6, $7, $8::jsonb, $9::jsonb, $10, $11::int, CASE WHEN $12::boolean THEN now() END FROM e
         ON CONFLICT (execution_id, seq) DO UPDATE SET status = EXCLUDED.status, output = EXCLUDED.output, error = EXCLUDED.error,
           attempts = r.attempts + EXCLUDED.attempts, completed_at = EXCLUDED.completed_at, input = coalesce(r.input, EXCLUDED.input)
         RETURNING r.id, r.attempts),
       moved AS (
         UPDATE ${this.executions} x SET status = $13, current_step_id = $14::uuid, step_seq = x.step_seq + CASE WHEN $15::boolean THEN 1 ELSE 0 END,
                due_at = CASE WHEN $16::text = 'now' THEN now() ELSE $17::timestamptz END, wait_event = $18, exit_reason = coalesce($19, x.exit_reason),
                error = $20, ended_at = CASE WHEN $21::boolean THEN now() END, updated_at = now(),
                claimed_until = CASE WHEN $22::boolean THEN now() + make_interval(secs => $23::double precision) END,
                claim_token = CASE WHEN $22::boolean THEN x.claim_token END
           FROM e WHERE x.id = e.id RETURNING x.id)
       SELECT run.id, run.attempts FROM run CROSS JOIN moved`,
      [
        executionId,
        seq,
        token,
        run.step.id,
        run.step.type,
        run.step.name,
        run.status,
        run.input === undefined ? null : JSON.stringify(run.input),
        run.output === undefined ? null : JSON.stringify(run.output),
        run.error ?? null,
        run.attempt ? 1 : 0,
        finished,
        move.status,
        move.stepId,
        move.nextSeq,
        move.dueAt === 'now' ? 'now' : null,
        move.dueAt === 'now' ? null : move.dueAt,
        move.waitEvent ?? null,
        move.exitReason ?? null,
        move.error ?? null,
        ended,
        move.keepLease && !ended,
        move.leaseSeconds ?? 60,
      ],
    );
    return row ? { runId: row.id, attempts: row.attempts } : null;
  }

  /**
   * `advance` for many executions in one statement (each checked as `advance` checks it, under its
   * row lock): answers the ids of the executions moved (the others' writes were not made).
   */
  async advanceMany(writes: Array<{ executionId: string; seq: number; token: string | null; run: RunWrite; move: MoveWrite }>): Promise<Set<string>> {
    if (!writes.length) return new Set();
    const list = writes.map(({ executionId, seq, token, run, move }) => {
      const ended = ['COMPLETED', 'EXITED', 'FAILED', 'CANCELLED'].includes(move.status);
      return {
        execution_id: executionId,
        seq,
        token,
        step_id: run.step.id,
        step_type: run.step.type,
        step_name: run.step.name,
        status: run.status,
        input: run.input ?? null,
        output: run.output ?? null,
        error: run.error ?? null,
        attempts: run.attempt ? 1 : 0,
        finished: run.status === 'COMPLETED' || run.status === 'FAILED' || run.status === 'SKIPPED',
        m_status: move.status,
        m_step_id: move.stepId,
        next_seq: move.nextSeq,
        due_now: move.dueAt === 'now',
        due_at: move.dueAt === 'now' ? null : move.dueAt,
        wait_event: move.waitEvent ?? null,
        exit_reason: move.exitReason ?? null,
        m_error: move.error ?? null,
        ended,
        keep: move.keepLease && !ended,
        lease_seconds: move.leaseSeconds ?? 60,
      };
    });
    const rows = await this.db.rows<{ id: string }>(
      `WITH w AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS w(execution_id uuid, seq int, token uuid, step_id uuid, step_type text, step_name text, status text, input jsonb, output jsonb,
           error text, attempts int, finished boolean, m_status text, m_step_id uuid, next_seq boolean, due_now boolean, due_at timestamptz, wait_event text, exit_reason text,
           m_error text, ended boolean, keep boolean, lease_seconds double precision)),
       e AS (
         SELECT w.* FROM ${this.executions} x JOIN w ON x.id = w.execution_id
          WHERE x.step_seq = w.seq AND x.status IN ('RUNNING', 'WAITING') AND (w.token IS NULL OR x.claim_token = w.token) ORDER BY x.id FOR UPDATE OF x),
       run AS (
         INSERT INTO ${this.runs} AS r (execution_id, seq, step_id, step_type, step_name, status, input, output, error, attempts, completed_at)
         SELECT e.execution_id, e.seq, e.step_id, e.step_type, e.step_name, e.status, e.input, e.output, e.error, e.attempts, CASE WHEN e.finished THEN now() END FROM e
         ON CONFLICT (execution_id, seq) DO UPDATE SET status = EXCLUDED.status, output = EXCLUDED.output, error = EXCLUDED.error,
           attempts = r.attempts + EXCLUDED.attempts, completed_at = EXCLUDED.completed_at, input = coalesce(r.input, EXCLUDED.input)
         RETURNING r.execution_id),
       moved AS (
         UPDATE ${this.executions} x SET status = e.m_status, current_step_id = e.m_step_id, step_seq = x.step_seq + CASE WHEN e.next_seq THEN 1 ELSE 0 END,
                due_at = CASE WHEN e.due_now THEN now() ELSE e.due_at END, wait_event = e.wait_event, exit_reason = coalesce(e.exit_reason, x.exit_reason),
                error = e.m_error, ended_at = CASE WHEN e.ended THEN now() END, updated_at = now(),
                claimed_until = CASE WHEN e.keep THEN now() + make_interval(secs => e.lease_seconds) END,
                claim_token = CASE WHEN e.keep THEN x.claim_token END
           FROM e WHERE x.id = e.execution_id RETURNING x.id)
       SELECT moved.id FROM moved JOIN run ON run.execution_id = moved.id`,
      [JSON.stringify(list)],
    );
    return new Set(rows.map((r) => r.id));
  }

  /**
   * The executions of this contact waiting for this event name (started waiting no later than the
   * event happened), locked; the caller resumes each with `advance`.
   */
  waitingFor(projectId: string, contactId: string, eventName: string, at: Date): Promise<ExecutionRow[]> {
    return this.db.rows<ExecutionRow>(
      `SELECT e.* FROM ${this.executions} e JOIN ${this.runs} r ON r.execution_id = e.id AND r.seq = e.step_seq AND r.status = 'WAITING'
        WHERE e.project_id = $1 AND e.contact_id = $2 AND e.status = 'WAITING' AND e.wait_event = $3 AND r.started_at <= $4
        ORDER BY e.created_at FOR UPDATE OF e`,
      [projectId, contactId, eventName, at],
    );
  }

  /** Whether the mails sent by these SEND_EMAIL steps of the execution were opened / clicked by a person (unflagged events). */
  async mailFacts(executionId: string, stepIds: string[]): Promise<Map<string, Record<MailFact, boolean>>> {
    const rows = await this.db.rows<{ step_id: string; opened: boolean; clicked: boolean }>(
      `SELECT r.step_id::text AS step_id,
              coalesce(bool_or(m.type = 'open'), false) AS opened, coalesce(bool_or(m.type = 'click'), false) AS clicked
         FROM ${this.runs} r
         LEFT JOIN ${this.db.table('mail_events')} m ON m.email_id = r.output->>'emailId' AND m.type IN ('open', 'click') AND m.flag IS NULL
        WHERE r.execution_id = $1 AND r.step_id = ANY($2::uuid[]) AND r.status = 'COMPLETED'
        GROUP BY r.step_id`,
      [executionId, stepIds],
    );
    return new Map(rows.map((r) => [r.step_id, { opened: r.opened, clicked: r.clicked }]));
  }

  /**
   * The key a project's WEBHOOK requests are signed with: the SHA-256 (hex) of its secret key, as
   * stored (the key itself is never kept); the customer computes it from the `sk_…` they hold.
   */
  async signingKey(projectId: string): Promise<string | null> {
    const row = await this.db.one<{ secret_key_hash: string }>(`SELECT secret_key_hash FROM ${this.db.table('projects')} WHERE id = $1`, [projectId]);
    return row?.secret_key_hash ?? null;
  }

  // ── the executions API ──────────────────────────────────────────────────────────────────────

  async page(workflowId: string, status: ExecutionStatus | undefined, limit: number, after: Keyset | null): Promise<ExecutionRow[]> {
    return this.db.rows<ExecutionRow>(
      `SELECT * FROM ${this.executions} WHERE workflow_id = $1 AND ($2::text IS NULL OR status = $2)
          AND ($3::timestamptz IS NULL OR (created_at, id) < ($3::timestamptz, $4::uuid))
        ORDER BY created_at DESC, id DESC LIMIT $5`,
      [workflowId, status ?? null, after?.createdAt ?? null, after?.id ?? null, limit + 1],
    );
  }

  async count(workflowId: string, status: ExecutionStatus | undefined): Promise<number> {
    const row = await this.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.executions} WHERE workflow_id = $1 AND ($2::text IS NULL OR status = $2)`, [workflowId, status ?? null]);
    return row!.n;
  }

  find(workflowId: string, id: string): Promise<ExecutionRow | null> {
    return this.db.one<ExecutionRow>(`SELECT * FROM ${this.executions} WHERE id = $1 AND workflow_id = $2`, [id, workflowId]);
  }

  async stepRuns(executionId: string): Promise<StepRun[]> {
    const rows = await this.db.rows<StepRunRow>(`SELECT * FROM ${this.runs} WHERE execution_id = $1 ORDER BY seq`, [executionId]);
    return rows.map(toStepRun);
  }

  /** Waiting executions of the project, soonest resumption first (those waiting for an event without timeout last). */
  async upcoming(projectId: string, limit: number): Promise<Array<ExecutionRow & { workflow_name: string; step_name: string | null; step_type: string | null }>> {
    return this.db.rows(
      `SELECT e.*, w.name AS workflow_name, s.name AS step_name, s.type AS step_type
         FROM ${this.executions} e JOIN ${this.db.table('workflows')} w ON w.id = e.workflow_id
         LEFT JOIN ${this.db.table('workflow_steps')} s ON s.id = e.current_step_id
        WHERE e.project_id = $1 AND e.status = 'WAITING'
        ORDER BY e.due_at ASC NULLS LAST, e.id LIMIT $2`,
      [projectId, limit],
    );
  }
}
