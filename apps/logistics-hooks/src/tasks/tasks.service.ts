import { Injectable, Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { Transactions } from '@platform/database';
import { LogisticsTaskClassified, Outbox } from '@platform/messaging';
import { ApiError } from '@platform/errors';
import { LlmClient } from '../llm/llm.client';
import { classifyEmail, mergeModelClassification, type Classification } from './classifier';
import type { BulkUpdateTasksDto, ClassifyEmailDto, ListTasksDto, RecapDto, UpdateTaskDto } from './dto/task-requests.dto';
import { extractiveBriefing, recapItems } from './recap';
import { RecapsRepository, type Recap } from './recaps.repository';
import { allowedMoves, canMoveTask } from './task-status';
import { CATEGORIES, MAX_TASKS, PRIORITIES, STATUSES, type TaskStatus } from './task-values';
import { TasksRepository, type Task, type TaskChanges, type TaskCounts, type TaskToRefine } from './tasks.repository';

const CLASSIFY_PROMPT = [
  'You classify emails sent to a logistics operations team into follow-up tasks.',
  'Answer with one JSON object with exactly these fields:',
  '"priority": one of HIGH, MEDIUM, LOW;',
  '"category": one of MISSING_DOCS, PAYMENT, TRACKING, CUSTOMS, GENERAL;',
  '"sentiment": one of NEUTRAL, URGENT, FRUSTRATED;',
  '"summary": one sentence;',
  '"action_required": what the team must do next, one sentence;',
  '"due_suggestion": an ISO date (YYYY-MM-DD) not before the day received.',
].join('\n');

const RECAP_PROMPT =
  'You write a short morning briefing for a logistics operations team from the emails given as JSON. ' +
  'Start with the most urgent matters, name shipment references exactly as written, and keep it under 200 words. Answer with the briefing text only.';

export interface ClassifiedTask {
  task: Task;
  evicted: number;
  /** True when the email (same Message-ID, or same content) had already made this task: nothing was stored. */
  deduplicated: boolean;
}

/**
 * The identity of an email: its Message-ID (angle brackets and surrounding space dropped), else the
 * SHA-256 of sender (lower-cased), subject, body and `received_at` (when given).
 */
export function emailDedupeKey(email: { message_id?: string; from: string; subject: string; body: string; received_at?: string }): string {
  const messageId = email.message_id?.trim().replace(/^<(.*)>$/, '$1').trim();
  if (messageId) return `message-id:${messageId}`;
  const content = JSON.stringify([email.from.trim().toLowerCase(), email.subject, email.body, email.received_at ?? null]);
  return `sha256:${createHash('sha256').update(content, 'utf8').digest('hex')}`;
}

/** Tasks from emails and the webhook's task actions. */
@Injectable()
export class TasksService {
  private readonly logger = new Logger(TasksService.name);
  private pendingListener: (() => void) | null = null;

  constructor(
    private readonly transactions: Transactions,
    private readonly tasks: TasksRepository,
    private readonly recaps: RecapsRepository,
    private readonly llm: LlmClient,
    private readonly outbox: Outbox,
  ) {}

  /** The refinement worker asks to be woken when a task awaits the model. */
  onPendingRefinement(listener: () => void): void {
    this.pendingListener = listener;
  }

  /**
   * Classifies the email by the rules at once and stores a PENDING task, keeping the newest 500; with
   * LLM_URL the model refines it in the background (`refinement: pending`, see TaskRefinementWorker).
   * A retried webhook (same Message-ID, or the same content) returns the task it already made.
   */
  async classify(email: ClassifyEmailDto): Promise<ClassifiedTask> {
    const receivedAt = email.received_at ? new Date(email.received_at) : new Date();
    const classification = classifyEmail({ from: email.from, subject: email.subject, body: email.body, receivedAt });
    const refine = this.llm.enabled;
    const result = await this.transactions.transaction(async () => {
      return this.tasks.insertKeepingNewest(
        {
          from: email.from,
          subject: email.subject,
          body: email.body,
          receivedAt,
          priority: classification.priority,
          category: classification.category,
          sentiment: classification.sentiment,
          summary: classification.summary,
          actionRequired: classification.action_required,
          dueSuggestion: classification.due_suggestion,
          shipmentRef: classification.shipment_ref,
          containers: classification.references.containers,
          billsOfLading: classification.references.billsOfLading,
          bookings: classification.references.bookings,
          classifiedBy: 'rules',
          messageId: email.message_id?.trim() || null,
          dedupeKey: emailDedupeKey(email),
          refinement: refine ? 'pending' : null,
        },
        MAX_TASKS,
      );
    });
    if (refine && !result.deduplicated) this.pendingListener?.();
    return result;
  }

  /** Pending refinements due now, leased to this replica. */
  claimRefinements(limit: number, leaseSeconds: number): Promise<TaskToRefine[]> {
    return this.tasks.claimRefinements(limit, leaseSeconds);
  }

  /**
   * Asks the model about one claimed task; the fields the rules accept replace the rules' (status,
   * assignee and notes stay), and `logistics.task_classified` is enqueued in the same transaction. A
   * failure is retried after `retryDelay(attempts)` seconds, up to `maxAttempts`.
   */
  async refine(task: TaskToRefine, maxAttempts: number, retryDelay: (attempts: number) => number): Promise<void> {
    const rules = classifyEmail({ from: task.from, subject: task.subject, body: task.body, receivedAt: task.receivedAt });
    let merged: { classification: Classification; usedModel: boolean };
    try {
      const answer = await this.llm.completeJson([
        { role: 'system', content: CLASSIFY_PROMPT },
        {
          role: 'user',
          content: JSON.stringify({ from: task.from, subject: task.subject, body: task.body.slice(0, 20_000), received_at: task.receivedAt.toISOString() }),
        },
      ]);
      merged = mergeModelClassification(rules, answer, task.receivedAt);
    } catch {
      const last = task.attempts >= maxAttempts;
      await this.tasks.refinementFailed(task.id, last ? null : retryDelay(task.attempts));
      this.logger.warn(`task ${task.id}: the model failed (attempt ${task.attempts}${last ? ', the rules\' classification stays' : ', retried later'})`);
      return;
    }
    const c = merged.classification;
    await this.transactions.transaction(async () => {
      const updated = await this.tasks.applyRefinement(
        task.id,
        merged.usedModel
          ? { priority: c.priority, category: c.category, sentiment: c.sentiment, summary: c.summary, actionRequired: c.action_required, dueSuggestion: c.due_suggestion }
          : null,
      );
      if (!updated) return;
      await this.outbox.enqueue(LogisticsTaskClassified, {
        taskId: updated.id,
        priority: updated.priority,
        category: updated.category,
        sentiment: updated.sentiment,
        classifiedBy: updated.classified_by,
        previous: { priority: rules.priority, category: rules.category, sentiment: rules.sentiment },
      });
    });
  }

  list(dto: ListTasksDto): Promise<{ tasks: Task[]; total: number }> {
    return this.tasks.list({ status: dto.status, priority: dto.priority, category: dto.category, search: dto.search, limit: dto.limit ?? 50 });
  }

  async get(id: string): Promise<Task> {
    const task = await this.tasks.findById(id);
    if (!task) throw taskNotFound([id]);
    return task;
  }

  /** Changes one task; a refused status move changes nothing (409). */
  update(dto: UpdateTaskDto): Promise<Task> {
    const changes = changesOf(dto);
    return this.transactions.transaction(async () => {
      const [task] = await this.tasks.lockByIds([dto.task_id]);
      if (!task) throw taskNotFound([dto.task_id]);
      if (changes.status) assertMoves([task], changes.status);
      const [updated] = await this.tasks.update([task.id], changes);
      return updated;
    });
  }

  /** Changes every listed task or none: an unknown id (404) or a refused move (409) changes nothing. */
  bulkUpdate(dto: BulkUpdateTasksDto): Promise<Task[]> {
    const changes = changesOf(dto);
    return this.transactions.transaction(async () => {
      const found = await this.tasks.lockByIds(dto.task_ids);
      if (found.length !== dto.task_ids.length) {
        const known = new Set(found.map((t) => t.id));
        throw taskNotFound(dto.task_ids.filter((id) => !known.has(id)));
      }
      if (changes.status) assertMoves(found, changes.status);
      const updated = await this.tasks.update(dto.task_ids, changes);
      const order = new Map(dto.task_ids.map((id, i) => [id, i]));
      return updated.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
    });
  }

  async delete(id: string): Promise<void> {
    if (!(await this.tasks.delete(id))) throw taskNotFound([id]);
  }

  /** Counts by status, priority and category; every value of the spec is present (0 when none). */
  async stats(): Promise<TaskCounts> {
    const counts = await this.tasks.counts();
    const fill = (values: readonly string[], got: Record<string, number>) => Object.fromEntries(values.map((v) => [v, got[v] ?? 0]));
    return {
      total: counts.total,
      by_status: fill(STATUSES, counts.by_status),
      by_priority: fill(PRIORITIES, counts.by_priority),
      by_category: fill(CATEGORIES, counts.by_category),
    };
  }

  /** Stores a briefing of the emails: the model's when LLM_URL answers, else the extractive one. */
  async recap(dto: RecapDto): Promise<Recap> {
    const items = recapItems(dto.emails, new Date());
    let briefing = extractiveBriefing(items);
    let generatedBy: 'extractive' | 'model' = 'extractive';
    if (this.llm.enabled) {
      try {
        briefing = await this.llm.complete([
          { role: 'system', content: RECAP_PROMPT },
          { role: 'user', content: JSON.stringify(dto.emails.map((e) => ({ from: e.from, subject: e.subject, body: e.body.slice(0, 5000) }))) },
        ]);
        generatedBy = 'model';
      } catch {
        this.logger.warn('recap: the model failed; the extractive briefing is stored');
      }
    }
    return this.recaps.insert({ briefing, items, generatedBy });
  }

  latestRecap(): Promise<Recap | null> {
    return this.recaps.latest();
  }

  /** Distinct container, bill of lading and booking numbers named by the stored tasks. */
  referenceCounts(): Promise<{ containers: number; bills_of_lading: number; bookings: number }> {
    return this.tasks.referenceCounts();
  }
}

function changesOf(dto: { status?: TaskStatus; assigned_to?: string | null; notes?: string | null; priority?: UpdateTaskDto['priority'] }): TaskChanges {
  const changes: TaskChanges = {};
  if (dto.status !== undefined) changes.status = dto.status;
  if (dto.priority !== undefined) changes.priority = dto.priority;
  if (dto.assigned_to !== undefined) changes.assignedTo = dto.assigned_to;
  if (dto.notes !== undefined) changes.notes = dto.notes;
  if (Object.keys(changes).length === 0) {
    throw new ApiError(400, 'NOTHING_TO_UPDATE', 'No field to change was given', {
      suggestion: 'Send at least one of status, assigned_to, notes or priority (bulk_update: status or assigned_to).',
    });
  }
  return changes;
}

function assertMoves(tasks: Task[], to: TaskStatus): void {
  const refused = tasks.filter((t) => !canMoveTask(t.status, to));
  if (refused.length === 0) return;
  const first = refused[0];
  throw new ApiError(
    409,
    'INVALID_STATUS_TRANSITION',
    refused.length === 1
      ? `Task ${first.id} cannot move from ${first.status} to ${to}`
      : `${refused.length} tasks cannot move to ${to}: ${refused.map((t) => `${t.id} (${t.status})`).join(', ')}`,
    {
      suggestion: `Statuses only move forward: PENDING → IN_PROGRESS → DONE (or PENDING → DONE). From ${first.status} the allowed values are ${allowedMoves(first.status).join(', ')}. Nothing was changed.`,
    },
  );
}

function taskNotFound(ids: string[]): ApiError {
  return new ApiError(404, 'TASK_NOT_FOUND', ids.length === 1 ? `Task ${ids[0]} not found` : `Tasks not found: ${ids.join(', ')}`, {
    suggestion: 'List the tasks with {"action": "list"} to see their ids (only the newest 500 are kept). Nothing was changed.',
  });
}
