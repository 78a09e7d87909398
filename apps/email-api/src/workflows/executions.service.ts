import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { randomUUID } from 'node:crypto';
import { DEFAULT_LIMIT } from '../common/list-query.dto';
import { decodeCursor, toPage, type CursorPage } from '../common/pagination';
import { normalizeEmail } from '../contacts/contact';
import type { Execution, ExecutionStatus, StepRun } from './execution';
import { ExecutionsRepository, toExecution } from './executions.repository';
import { ExecutionsWorker } from './engine/executions.worker';

/** The largest `context` of a manual start (JSON characters). */
const MAX_CONTEXT_CHARS = 64 * 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const workflowNotFound = () =>
  new ApiError(404, 'WORKFLOW_NOT_FOUND', 'Workflow not found', { suggestion: 'Check the workflow id; GET /workflows lists the workflows of the project.' });
export const executionNotFound = () =>
  new ApiError(404, 'EXECUTION_NOT_FOUND', 'Execution not found', { suggestion: 'Check the execution id; GET /workflows/{id}/executions lists the executions of the workflow.' });

/** One upcoming item of `/activity/upcoming` for a waiting execution. */
export interface UpcomingExecution {
  type: 'workflow_execution';
  id: string;
  workflowId: string;
  workflowName: string;
  contactId: string;
  stepId: string | null;
  stepName: string | null;
  stepType: string | null;
  /** When the engine resumes it (end of a DELAY, timeout of a WAIT_FOR_EVENT); null: waits for an event without timeout. */
  scheduledFor: Date | null;
  waitingFor: string | null;
}

/**
 * Executions of workflows: the manual start, the executions API (list, get with its step history,
 * cancel one, cancel all) and what other features ask of them (active counts for deletes, waiting
 * executions at a step, upcoming wake-ups). The engine itself is `engine/`.
 */
@Injectable()
export class ExecutionsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly executions: ExecutionsRepository,
    private readonly worker: ExecutionsWorker,
  ) {}

  /** Running or waiting executions of the workflow (DELETE /workflows/:id answers 409 while any). */
  countActive(workflowId: string): Promise<number> {
    return this.executions.countActive(workflowId);
  }

  /** Active executions at this step: waiting there (DELAY, WAIT_FOR_EVENT) or about to run it (or retry it). */
  countWaitingAt(stepId: string): Promise<number> {
    return this.executions.countWaitingAt(stepId);
  }

  /** Ends the active executions at this step as EXITED with the reason (a step edited or deleted with `?exitWaiting=true`); answers how many. */
  async exitWaitingAt(stepId: string, reason: string): Promise<number> {
    return (await this.executions.endActive({ stepId }, 'EXITED', reason)).length;
  }

  /** Active executions of workflows triggered by the segment's entry or exit (the segment's delete answers 409 while any). */
  activeUsingSegment(segmentId: string): Promise<{ executions: number; workflows: string[] }> {
    return this.executions.countActiveUsingSegment(segmentId);
  }

  /** Waiting executions of the project for `/activity/upcoming`, soonest first. */
  async upcoming(projectId: string, limit = DEFAULT_LIMIT): Promise<UpcomingExecution[]> {
    const rows = await this.executions.upcoming(projectId, limit);
    return rows.map((r) => ({
      type: 'workflow_execution',
      id: r.id,
      workflowId: r.workflow_id,
      workflowName: r.workflow_name,
      contactId: r.contact_id,
      stepId: r.current_step_id,
      stepName: r.step_name,
      stepType: r.step_type,
      scheduledFor: r.due_at,
      waitingFor: r.wait_event,
    }));
  }

  /**
   * POST /workflows/:id/executions: starts the workflow for a contact of the project (by id or
   * email) with an optional `context`. The workflow must be enabled (its graph was validated then);
   * `allowReentry` is respected (409 `REENTRY_NOT_ALLOWED`).
   */
  async start(projectId: string, workflowId: string, input: { contactId?: string; email?: string; context?: Record<string, unknown> }): Promise<Execution> {
    if (!input.contactId === !input.email) {
      throw new ApiError(422, 'VALIDATION_ERROR', 'Validation failed', {
        errors: [{ field: input.contactId ? 'email' : 'contactId', message: 'give exactly one of contactId and email', code: 'invalid_union' }],
        suggestion: 'Name the contact by its id (cnt_…) or by its email, not both.',
      });
    }
    if (input.context && JSON.stringify(input.context).length > MAX_CONTEXT_CHARS) {
      throw new ApiError(422, 'VALIDATION_ERROR', 'Validation failed', {
        errors: [{ field: 'context', message: 'context holds at most 64 KiB of JSON', code: 'too_big' }],
        suggestion: 'Keep per-execution variables small; store large data on the contact.',
      });
    }
    const row = await this.transactions.transaction(async () => {
      const workflow = await this.executions.findWorkflow(projectId, workflowId);
      if (!workflow) throw workflowNotFound();
      if (!workflow.enabled) {
        throw new ApiError(409, 'WORKFLOW_DISABLED', 'The workflow is disabled: executions start only while it is enabled', {
          suggestion: 'Enable it with PATCH /workflows/{id} {"enabled": true} (this validates its steps and transitions), then start it again.',
        });
      }
      const contact = await this.executions.findContact(projectId, input.contactId ? { id: input.contactId } : { email: normalizeEmail(input.email!) });
      if (!contact) {
        throw new ApiError(404, 'CONTACT_NOT_FOUND', 'Contact not found', { suggestion: 'Create the contact first (POST /contacts), or check the id or email.' });
      }
      const started = await this.executions.startManual(workflow.id, contact.id, input.context ?? {}, `manual:${randomUUID()}`);
      if (!started) {
        throw new ApiError(409, 'REENTRY_NOT_ALLOWED', workflow.allowReentry ? 'The contact already has an active execution of this workflow' : 'The contact already went through this workflow and allowReentry is false', {
          suggestion: workflow.allowReentry ? 'Wait until that execution ends, or cancel it (DELETE /workflows/{id}/executions/{executionId}).' : 'Set allowReentry to true (PATCH /workflows/{id}) to let contacts go through it again.',
        });
      }
      return started;
    });
    this.worker.wake();
    return toExecution(row);
  }

  async list(projectId: string, workflowId: string, query: { status?: ExecutionStatus; limit?: number; cursor?: string }): Promise<CursorPage<Execution>> {
    await this.workflow(projectId, workflowId);
    const limit = query.limit ?? DEFAULT_LIMIT;
    const after = decodeCursor(query.cursor, UUID);
    const [rows, total] = await Promise.all([this.executions.page(workflowId, query.status, limit, after), after ? Promise.resolve(null) : this.executions.count(workflowId, query.status)]);
    return toPage(rows.map(toExecution), limit, total);
  }

  async get(projectId: string, workflowId: string, id: string): Promise<Execution & { steps: StepRun[] }> {
    await this.workflow(projectId, workflowId);
    const row = await this.executions.find(workflowId, id);
    if (!row) throw executionNotFound();
    return { ...toExecution(row), steps: await this.executions.stepRuns(id) };
  }

  /** DELETE …/executions/:executionId: a running or waiting execution becomes CANCELLED (409 `EXECUTION_NOT_ACTIVE` once ended). */
  async cancel(projectId: string, workflowId: string, id: string): Promise<Execution> {
    await this.workflow(projectId, workflowId);
    const existing = await this.executions.find(workflowId, id);
    if (!existing) throw executionNotFound();
    const [cancelled] = await this.executions.endActive({ executionId: id }, 'CANCELLED', 'cancelled');
    if (!cancelled) {
      const now = (await this.executions.find(workflowId, id))!;
      throw new ApiError(409, 'EXECUTION_NOT_ACTIVE', `The execution is ${now.status}: only running or waiting executions can be cancelled`, {
        suggestion: 'Nothing to do: it has ended already.',
      });
    }
    return toExecution(cancelled);
  }

  /** POST …/executions/cancel-all: every running or waiting execution of the workflow becomes CANCELLED. */
  async cancelAll(projectId: string, workflowId: string): Promise<{ cancelled: number }> {
    await this.workflow(projectId, workflowId);
    return { cancelled: (await this.executions.endActive({ workflowId }, 'CANCELLED', 'cancelled')).length };
  }

  private async workflow(projectId: string, workflowId: string) {
    const workflow = await this.executions.findWorkflow(projectId, workflowId);
    if (!workflow) throw workflowNotFound();
    return workflow;
  }
}
