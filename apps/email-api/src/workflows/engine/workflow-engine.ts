import { Injectable, Logger } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { BillingUsage } from '../../billing/billing-usage.service';
import { EmailApiConfig } from '../../config';
import { ContactsService } from '../../contacts/contacts.service';
import { MAX_STEP_ATTEMPTS, MAX_STEPS_PER_CLAIM, retryDelayMs, type ExecutionStatus, type ExecutionTrigger, type StepRun } from '../execution';
import { ExecutionsRepository, type EngineContact, type ExecutionRow, type MoveWrite, type RunWrite, type StepDef, type WorkflowGraph } from '../executions.repository';
import { delayMs, type ConditionConfig, type DelayConfig, type ExitConfig, type UpdateContactConfig, type WaitForEventConfig } from '../step-config';
import { evaluateCondition, mailStepsOf } from './condition';
import { SendEmailStep, type Template } from './send-email-step';
import { StepError } from './step-error';
import { WebhookStep } from './webhook-step';

/** Where one execution stands while a replica advances it. */
interface Cursor {
  row: ExecutionRow;
  seq: number;
  stepId: string | null;
  /** The claim token (null when an event resumes it under the row lock instead of a claim). */
  token: string | null;
  /** The step run at `seq` when it exists already (a WAITING step, an attempt pending its retry). */
  run: StepRun | undefined;
  contact: EngineContact;
  /** Reads shared by the executions of one tick (templates and their sender checks, signing keys). */
  memo: TickMemo;
}

interface TickMemo {
  templates: Map<string, Promise<Template>>;
  keys: Map<string, Promise<string | null>>;
}

/** What a step did: complete (and which branch to follow), wait, or end the execution. */
type Outcome =
  | { kind: 'complete'; output: unknown; input?: unknown; branch?: 'yes' | 'no' | 'timeout' | null; end?: { status: ExecutionStatus; reason: string } }
  | { kind: 'wait'; input: unknown; output: unknown; until: Date | null; event: string | null };

/** Writes happen in a transaction of their own (with the step's effect) and are already done. */
type Done = { kind: 'written'; moved: boolean; nextStepId: string | null };

/** The execution moved on while this replica ran its step: the step's transaction is rolled back. */
class Stale extends Error {}

/** An execution of a batch needs to go alone: the batch's transaction is rolled back (see `advanceBatch`). */
class GoAlone extends Error {}

/** A claimed execution and its workflow's graph. */
interface Claimed {
  cursor: Cursor;
  graph: WorkflowGraph;
}

/** Executions advanced together in one transaction (per lane of a tick). */
const BATCH_MAX = 32;

/** The items by key, in their order. */
function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const list = out.get(key(item));
    if (list) list.push(item);
    else out.set(key(item), [item]);
  }
  return out;
}

/** Runs `task` over `items` with at most `lanes` at once. */
async function inLanes<T>(items: T[], lanes: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(lanes, items.length) }, async () => {
      while (next < items.length) await task(items[next++]);
    }),
  );
}

/**
 * The workflow engine: advances executions step by step. Every step run is written together with
 * the execution's move, in one statement that checks under the row lock that the execution is still
 * at that step run (`step_seq`), active and still this replica's claim — and, for steps with an
 * effect in this database (SEND_EMAIL's mail, UPDATE_CONTACT's change), in the same transaction
 * as the effect. So a step run completes once, whatever replica, event, timeout or cancel races
 * for it, and a crash leaves either both the effect and its record or neither. Executions are
 * claimed with `claimDue` (lease LEASE_SECONDS): a replica killed mid-step leaves its executions to
 * another after the lease. A WEBHOOK's request cannot join a transaction: it is delivered at least
 * once, with the same delivery id on every try.
 */
@Injectable()
export class WorkflowEngine {
  private readonly logger = new Logger('WorkflowEngine');

  constructor(
    private readonly transactions: Transactions,
    private readonly executions: ExecutionsRepository,
    private readonly contacts: ContactsService,
    private readonly mail: SendEmailStep,
    private readonly webhooks: WebhookStep,
    private readonly config: EmailApiConfig,
    private readonly billing: BillingUsage,
  ) {}

  /** Claims due executions and advances each as far as it goes now; answers how many were claimed. */
  async tick(): Promise<number> {
    const lanes = this.config.WORKFLOW_CONCURRENCY;
    const claimed = await this.executions.claimDue(Math.min(1000, lanes * BATCH_MAX), this.config.WORKFLOW_LEASE_SECONDS);
    if (!claimed.length) return 0;
    const [graphs, contacts, runs] = await Promise.all([
      this.executions.graphs([...new Set(claimed.map((x) => x.workflow_id))]),
      this.executions.contacts([...new Set(claimed.map((x) => x.contact_id))]),
      this.executions.currentRuns(claimed),
    ]);
    let sent = false;
    const memo: TickMemo = { templates: new Map(), keys: new Map() };
    const items: Claimed[] = [];
    for (const row of claimed) {
      const contact = contacts.get(row.contact_id);
      if (!contact) continue; // deleted meanwhile: its executions went with it (cascade)
      items.push({ cursor: { row, seq: row.step_seq, stepId: row.current_step_id, token: row.claim_token, run: runs.get(row.id), contact, memo }, graph: graphs.get(row.workflow_id)! });
    }
    const size = Math.max(1, Math.min(BATCH_MAX, Math.ceil(items.length / lanes)));
    const batches = Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));
    await inLanes(batches, lanes, async (batch) => {
      sent = (await this.advanceBatch(batch)) || sent;
    });
    if (sent) this.mail.flush();
    return claimed.length;
  }

  /**
   * Advances a batch of claimed executions in one transaction: each runs its steps (the same writes,
   * checks and effects as alone) until it waits, ends, or comes to a WEBHOOK step, and the mails'
   * billing units are taken together at the end (`BillingUsage.batched`): one commit and one lock
   * of the project's usage counter for the batch instead of one per step. Anything out of the
   * ordinary — a step that fails, an execution that moved on meanwhile after an effect, mails that
   * do not fit in the cap, any error — rolls the whole batch back, and each execution then goes
   * alone from where it was (`advanceAlone`: its own transactions, the failure and retry rules, the
   * exact cap). After the commit, the executions at a WEBHOOK step go on alone (a request is never
   * made inside a transaction). Answers whether a mail was written.
   */
  private async advanceBatch(batch: Claimed[]): Promise<boolean> {
    let after: Claimed[];
    let sent = false;
    try {
      after = await this.transactions.transaction(() =>
        this.billing.batched(async () => {
          const out = await this.runBatch(batch);
          sent = out.sent;
          return out.alone;
        }),
      );
    } catch (err) {
      this.logger.debug(`a batch of ${batch.length} executions goes one by one: ${(err as Error).message}`);
      sent = false;
      after = batch;
    }
    for (const item of after) sent = (await this.advanceAlone(item)) || sent;
    return sent;
  }

  /**
   * The batch's steps, in rounds (in the batch's transaction): each round runs the step every
   * execution of the batch is at — the steps without effect as they run alone, SEND_EMAIL with the
   * suppressions of all its recipients looked up at once, UPDATE_CONTACT one by one — and writes all
   * their step runs and moves in one statement (`advanceMany`, the same checks under the row locks);
   * then the mails of the executions moved. An execution at a WEBHOOK step (or a deleted one) is
   * left for after the commit (`alone`); an execution that moved on meanwhile after its contact was
   * updated, or any failure, throws (the batch is rolled back).
   */
  private async runBatch(batch: Claimed[]): Promise<{ sent: boolean; alone: Claimed[] }> {
    const alone: Claimed[] = [];
    let sent = false;
    let active: Claimed[] = batch.map((item) => ({ cursor: { ...item.cursor }, graph: item.graph }));
    for (let i = 0; i < MAX_STEPS_PER_CLAIM && active.length; i++) {
      const goOn = i < MAX_STEPS_PER_CLAIM - 1;
      const round: Array<{ item: Claimed; step: StepDef; outcome: Outcome; mail?: () => Promise<void> }> = [];
      const mails: Array<{ item: Claimed; step: StepDef }> = [];
      for (const item of active) {
        const step = item.cursor.stepId ? item.graph.steps.get(item.cursor.stepId) : undefined;
        if (!step || step.type === 'WEBHOOK') alone.push(item);
        else if (step.type === 'SEND_EMAIL') mails.push({ item, step });
        else if (step.type === 'UPDATE_CONTACT') round.push({ item, step, outcome: await this.updateContact(item.cursor, step) });
        else round.push({ item, step, outcome: (await this.run(item.cursor, step, item.graph, goOn)) as Outcome });
      }
      for (const [projectId, group] of groupBy(mails, (m) => m.item.cursor.row.project_id)) {
        const blocked = await this.mail.blockingOf(projectId, group.map((m) => ({ step: m.step, contact: m.item.cursor.contact })));
        for (const { item, step } of group) {
          const row = item.cursor.row;
          const { mail, write } = await this.mail.prepare({ id: row.id, projectId, trigger: row.trigger, context: row.context }, step, item.cursor.contact, item.cursor.memo.templates, blocked);
          round.push({ item, step, outcome: { kind: 'complete', input: { templateId: (step.config as { templateId: string }).templateId }, output: mail }, mail: write });
        }
      }
      const writes = round.map(({ item, step, outcome }) => {
        const { cursor, graph } = item;
        const write: { run: RunWrite; move: MoveWrite } =
          outcome.kind === 'wait'
            ? {
                run: { step, status: 'WAITING', input: outcome.input, output: outcome.output, attempt: false },
                move: { status: 'WAITING', stepId: step.id, nextSeq: false, dueAt: outcome.until, waitEvent: outcome.event, keepLease: false },
              }
            : this.completion(cursor, step, graph, outcome, goOn);
        return { executionId: cursor.row.id, seq: cursor.seq, token: cursor.token, ...write };
      });
      const moved = await this.executions.advanceMany(writes);
      const next: Claimed[] = [];
      for (const [k, { item, step, mail }] of round.entries()) {
        if (!moved.has(item.cursor.row.id)) {
          // moved on meanwhile (another replica, an event, a cancel): nothing was written for it, but a contact update was
          if (step.type === 'UPDATE_CONTACT') throw new GoAlone('the execution moved on meanwhile');
          continue;
        }
        if (mail) {
          await mail();
          sent = true;
        }
        const move = writes[k].move;
        if (move.status === 'RUNNING') next.push({ cursor: { ...item.cursor, seq: item.cursor.seq + 1, stepId: move.stepId, run: undefined }, graph: item.graph });
      }
      active = next;
    }
    return { sent, alone };
  }

  /** UPDATE_CONTACT's effect (in the open transaction); the cursor's contact becomes the updated one. */
  private async updateContact(cursor: Cursor, step: StepDef): Promise<Extract<Outcome, { kind: 'complete' }>> {
    const row = cursor.row;
    const config = step.config as unknown as UpdateContactConfig;
    let contact;
    try {
      contact = await this.contacts.update(row.project_id, row.contact_id, { data: config.data, subscribed: config.subscribed }, `workflow-execution:${row.id}`);
    } catch (err) {
      if (err instanceof ApiError && err.getStatus() < 500) throw new StepError(err.message, true);
      throw err;
    }
    cursor.contact = { id: contact.id, email: contact.email, subscribed: contact.subscribed, data: contact.data };
    return { kind: 'complete', input: config, output: { contact: { id: contact.id, subscribed: contact.subscribed, data: contact.data } } };
  }

  /** One execution in transactions of its own; errors are logged (the claim's lease runs out and it is taken again). */
  private async advanceAlone({ cursor, graph }: Claimed): Promise<boolean> {
    try {
      return await this.advance(cursor, graph);
    } catch (err) {
      this.logger.error(`execution ${cursor.row.id}: ${(err as Error).message}`, (err as Error).stack);
      return false;
    }
  }

  /**
   * A tracked event of the contact: resumes its executions waiting for that event name (in the
   * caller's transaction: the event consumer's inbox); answers how many resumed. The next steps run
   * on the next tick of a worker.
   */
  async resumeWaiting(projectId: string, contactId: string, eventName: string, eventId: string, at: Date): Promise<number> {
    const waiting = await this.executions.waitingFor(projectId, contactId, eventName, at);
    if (!waiting.length) return 0;
    const graphs = await this.executions.graphs([...new Set(waiting.map((x) => x.workflow_id))]);
    let resumed = 0;
    for (const row of waiting) {
      const step = row.current_step_id ? graphs.get(row.workflow_id)?.steps.get(row.current_step_id) : undefined;
      if (!step) continue;
      const next = this.nextOf(graphs.get(row.workflow_id)!, step, null);
      const done = await this.executions.advance(
        row.id,
        row.step_seq,
        null,
        { step, status: 'COMPLETED', output: { outcome: 'event', eventName, eventId }, attempt: true },
        next ? { status: 'RUNNING', stepId: next, nextSeq: true, dueAt: 'now', keepLease: false } : { status: 'COMPLETED', stepId: step.id, nextSeq: false, dueAt: null, keepLease: false },
      );
      if (done) resumed++;
    }
    return resumed;
  }

  /** Runs steps of one claimed execution until it waits, ends, fails or its claim is spent; answers whether a mail was queued. */
  private async advance(cursor: Cursor, graph: WorkflowGraph): Promise<boolean> {
    let sent = false;
    for (let i = 0; i < MAX_STEPS_PER_CLAIM; i++) {
      const last = i === MAX_STEPS_PER_CLAIM - 1;
      const step = cursor.stepId ? graph.steps.get(cursor.stepId) : undefined;
      if (!step) {
        // the step was deleted while the execution was at it (or about to run it)
        await this.executions.endActive({ executionId: cursor.row.id }, 'FAILED', 'the step the execution was at was deleted');
        return sent;
      }
      let result: Outcome | Done;
      try {
        result = await this.run(cursor, step, graph, !last);
        if (step.type === 'SEND_EMAIL' && result.kind === 'written' && result.moved) sent = true;
      } catch (err) {
        await this.failed(cursor, step, err);
        return sent;
      }
      let moved: boolean;
      let nextStepId: string | null;
      if (result.kind === 'written') {
        ({ moved, nextStepId } = result);
      } else if (result.kind === 'wait') {
        await this.executions.advance(
          cursor.row.id,
          cursor.seq,
          cursor.token,
          { step, status: 'WAITING', input: result.input, output: result.output, attempt: false },
          { status: 'WAITING', stepId: step.id, nextSeq: false, dueAt: result.until, waitEvent: result.event, keepLease: false },
        );
        return sent;
      } else {
        const write = this.completion(cursor, step, graph, result, !last);
        moved = (await this.executions.advance(cursor.row.id, cursor.seq, cursor.token, write.run, write.move)) !== null;
        nextStepId = write.move.status === 'RUNNING' ? write.move.stepId : null;
      }
      if (!moved || !nextStepId) return sent;
      cursor = { ...cursor, seq: cursor.seq + 1, stepId: nextStepId, run: undefined };
    }
    return sent;
  }

  /** The step run and the execution's move of a completed step. */
  private completion(cursor: Cursor, step: StepDef, graph: WorkflowGraph, outcome: Extract<Outcome, { kind: 'complete' }>, goOn: boolean): { run: RunWrite; move: MoveWrite } {
    const run: RunWrite = { step, status: 'COMPLETED', input: outcome.input, output: outcome.output, attempt: true };
    if (outcome.end) return { run, move: { status: outcome.end.status, stepId: step.id, nextSeq: false, dueAt: null, exitReason: outcome.end.reason, keepLease: false } };
    const next = this.nextOf(graph, step, outcome.branch ?? null);
    if (!next) {
      // the end of the graph (a WAIT_FOR_EVENT timeout without `timeout` branch ends with reason 'timeout')
      return { run, move: { status: 'COMPLETED', stepId: step.id, nextSeq: false, dueAt: null, exitReason: outcome.branch === 'timeout' ? 'timeout' : null, keepLease: false } };
    }
    return { run, move: { status: 'RUNNING', stepId: next, nextSeq: true, dueAt: 'now', keepLease: goOn, leaseSeconds: this.config.WORKFLOW_LEASE_SECONDS } };
  }

  /** The step a branch leads to: `yes`/`no` out of a CONDITION, `timeout` out of a WAIT_FOR_EVENT, the plain transition otherwise. */
  private nextOf(graph: WorkflowGraph, step: StepDef, branch: 'yes' | 'no' | 'timeout' | null): string | null {
    return graph.next.get(step.id)?.get(branch ?? '') ?? null;
  }

  private async run(cursor: Cursor, step: StepDef, graph: WorkflowGraph, goOn: boolean): Promise<Outcome | Done> {
    const row = cursor.row;
    switch (step.type) {
      case 'TRIGGER':
        return { kind: 'complete', output: row.trigger };
      case 'DELAY': {
        if (cursor.run?.status === 'WAITING') return { kind: 'complete', output: { ...(cursor.run.output as object), resumedAt: new Date() } };
        const config = step.config as unknown as DelayConfig;
        const until = new Date(Date.now() + delayMs(config));
        return { kind: 'wait', input: config, output: { resumeAt: until }, until, event: null };
      }
      case 'WAIT_FOR_EVENT': {
        if (cursor.run?.status === 'WAITING') {
          // claimed while waiting: its timeout has come (an event resumes it through resumeWaiting)
          return { kind: 'complete', output: { outcome: 'timeout' }, branch: 'timeout' };
        }
        const config = step.config as unknown as WaitForEventConfig;
        const until = config.timeout ? new Date(Date.now() + config.timeout * 1000) : null;
        return { kind: 'wait', input: config, output: { waitingFor: config.eventName, timeoutAt: until }, until, event: config.eventName };
      }
      case 'CONDITION': {
        const config = step.config as unknown as ConditionConfig;
        const mailSteps = mailStepsOf(config);
        const mail = mailSteps.length ? await this.executions.mailFacts(row.id, mailSteps) : new Map();
        const result = evaluateCondition(config, { contact: cursor.contact, event: row.trigger.data ?? {}, mail });
        return { kind: 'complete', input: config, output: { result, branch: result ? 'yes' : 'no' }, branch: result ? 'yes' : 'no' };
      }
      case 'EXIT': {
        const reason = (step.config as unknown as ExitConfig).reason ?? 'exit';
        return { kind: 'complete', output: { reason }, end: { status: 'EXITED', reason } };
      }
      case 'WEBHOOK': {
        let key = cursor.memo.keys.get(row.project_id);
        if (!key) cursor.memo.keys.set(row.project_id, (key = this.executions.signingKey(row.project_id)));
        const signingKey = await key;
        if (!signingKey) throw new StepError('the project no longer exists', true);
        const result = await this.webhooks.call(
          { executionId: row.id, workflowId: row.workflow_id, deliveryId: `${row.id}:${cursor.seq}`, trigger: row.trigger, context: row.context, signingKey },
          step,
          cursor.contact,
        );
        return { kind: 'complete', input: { url: (step.config as { url: string }).url, method: (step.config as { method: string }).method }, output: result };
      }
      case 'SEND_EMAIL':
        return this.inTransaction(cursor, step, graph, goOn, async () => {
          const { mail, write } = await this.mail.prepare({ id: row.id, projectId: row.project_id, trigger: row.trigger as ExecutionTrigger, context: row.context }, step, cursor.contact, cursor.memo.templates);
          return { outcome: { kind: 'complete', input: { templateId: (step.config as { templateId: string }).templateId }, output: mail }, last: write };
        });
      case 'UPDATE_CONTACT':
        return this.inTransaction(cursor, step, graph, goOn, async () => ({ outcome: await this.updateContact(cursor, step) }));
    }
  }

  /**
   * A step whose effect is in this database: the effect and the step's completion in one
   * transaction; the completion checks the claim under the row lock, and when the execution moved
   * on meanwhile (another replica, an event, a cancel) the whole transaction, effect included, is
   * rolled back. `last` (the mail's write) runs after the completion, still in the transaction.
   */
  private async inTransaction(
    cursor: Cursor,
    step: StepDef,
    graph: WorkflowGraph,
    goOn: boolean,
    effect: () => Promise<{ outcome: Extract<Outcome, { kind: 'complete' }>; last?: () => Promise<void> }>,
  ): Promise<Done> {
    try {
      return await this.transactions.transaction(async () => {
        const { outcome, last } = await effect();
        const write = this.completion(cursor, step, graph, outcome, goOn);
        // the check under the row lock comes with the completion; when it fails the effect is rolled back
        if ((await this.executions.advance(cursor.row.id, cursor.seq, cursor.token, write.run, write.move)) === null) throw new Stale();
        if (last) await last();
        return { kind: 'written', moved: true, nextStepId: write.move.status === 'RUNNING' ? write.move.stepId : null } as Done;
      });
    } catch (err) {
      if (err instanceof Stale) return { kind: 'written', moved: false, nextStepId: null };
      throw err;
    }
  }

  /** A failed attempt: retried after the backoff, or the execution FAILS (tries used up, or a permanent error). */
  private async failed(cursor: Cursor, step: StepDef, err: unknown): Promise<void> {
    const stepError = err instanceof StepError ? err : null;
    const message = stepError ? stepError.message : `unexpected error: ${(err as Error).message}`;
    if (!stepError) this.logger.warn(`execution ${cursor.row.id}, step ${step.id} (${step.type}): ${(err as Error).stack ?? message}`);
    const attempts = (cursor.run?.status === 'PENDING' ? cursor.run.attempts : 0) + 1;
    const output = stepError?.output;
    if (stepError?.permanent || attempts >= MAX_STEP_ATTEMPTS) {
      const why = stepError?.permanent ? message : `${message} (after ${attempts} attempts)`;
      await this.executions.advance(
        cursor.row.id,
        cursor.seq,
        cursor.token,
        { step, status: 'FAILED', output, error: why, attempt: true },
        { status: 'FAILED', stepId: step.id, nextSeq: false, dueAt: null, error: `Step "${step.name}" (${step.type}) failed: ${why}`, keepLease: false },
      );
      return;
    }
    await this.executions.advance(
      cursor.row.id,
      cursor.seq,
      cursor.token,
      { step, status: 'PENDING', output, error: message, attempt: true },
      { status: 'RUNNING', stepId: step.id, nextSeq: false, dueAt: new Date(Date.now() + retryDelayMs(attempts)), keepLease: false },
    );
  }
}
