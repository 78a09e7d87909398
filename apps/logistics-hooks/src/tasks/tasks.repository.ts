import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { Category, Priority, Sentiment, TaskStatus } from './task-values';

export interface Task {
  id: string;
  from: string;
  subject: string;
  body: string;
  received_at: string;
  priority: Priority;
  category: Category;
  sentiment: Sentiment;
  status: TaskStatus;
  summary: string;
  action_required: string;
  due_suggestion: string;
  shipment_ref: string | null;
  references: { containers: string[]; bills_of_lading: string[]; bookings: string[] };
  assigned_to: string | null;
  notes: string | null;
  classified_by: 'rules' | 'model';
  /** The background refinement by the model: `pending`, `done`, `failed`; null without LLM_URL. */
  refinement: Refinement | null;
  message_id: string | null;
  created_at: string;
  updated_at: string;
}

export type Refinement = 'pending' | 'done' | 'failed';

/** What the refinement worker needs of a claimed task. */
export interface TaskToRefine {
  id: string;
  from: string;
  subject: string;
  body: string;
  receivedAt: Date;
  attempts: number;
}

export interface RefinedFields {
  priority: Priority;
  category: Category;
  sentiment: Sentiment;
  summary: string;
  actionRequired: string;
  dueSuggestion: string;
}

interface TaskRow {
  id: string;
  from_address: string;
  subject: string;
  body: string;
  received_at: Date;
  priority: Priority;
  category: Category;
  sentiment: Sentiment;
  status: TaskStatus;
  summary: string;
  action_required: string;
  due_suggestion: string;
  shipment_ref: string | null;
  containers: string[];
  bills_of_lading: string[];
  bookings: string[];
  assigned_to: string | null;
  notes: string | null;
  classified_by: 'rules' | 'model';
  refinement: Refinement | null;
  message_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface NewTask {
  from: string;
  subject: string;
  body: string;
  receivedAt: Date;
  priority: Priority;
  category: Category;
  sentiment: Sentiment;
  summary: string;
  actionRequired: string;
  dueSuggestion: string;
  shipmentRef: string | null;
  containers: string[];
  billsOfLading: string[];
  bookings: string[];
  classifiedBy: 'rules' | 'model';
  messageId: string | null;
  dedupeKey: string;
  /** 'pending': the model refines it in the background; null: the rules' classification is final. */
  refinement: 'pending' | null;
}

export interface TaskFilter {
  status?: TaskStatus;
  priority?: Priority;
  category?: Category;
  search?: string;
  limit: number;
}

export interface TaskChanges {
  status?: TaskStatus;
  priority?: Priority;
  assignedTo?: string | null;
  notes?: string | null;
}

export interface TaskCounts {
  total: number;
  by_status: Record<string, number>;
  by_priority: Record<string, number>;
  by_category: Record<string, number>;
}

const COLUMNS = `id, from_address, subject, body, received_at, priority, category, sentiment, status, summary,
  action_required, to_char(due_suggestion, 'YYYY-MM-DD') AS due_suggestion, shipment_ref, containers, bills_of_lading,
  bookings, assigned_to, notes, classified_by, refinement, message_id, created_at, updated_at`;

function toTask(r: TaskRow): Task {
  return {
    id: r.id,
    from: r.from_address,
    subject: r.subject,
    body: r.body,
    received_at: new Date(r.received_at).toISOString(),
    priority: r.priority,
    category: r.category,
    sentiment: r.sentiment,
    status: r.status,
    summary: r.summary,
    action_required: r.action_required,
    due_suggestion: r.due_suggestion,
    shipment_ref: r.shipment_ref,
    references: { containers: r.containers, bills_of_lading: r.bills_of_lading, bookings: r.bookings },
    assigned_to: r.assigned_to,
    notes: r.notes,
    classified_by: r.classified_by,
    refinement: r.refinement,
    message_id: r.message_id,
    created_at: new Date(r.created_at).toISOString(),
    updated_at: new Date(r.updated_at).toISOString(),
  };
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

@Injectable()
export class TasksRepository {
  constructor(private readonly db: Database) {}

  /**
   * Inserts a task and removes every task beyond the newest `keep`, in the caller's transaction. A
   * transaction-scoped advisory lock orders concurrent inserts, so two of them cannot both miss
   * each other's row and leave more than `keep`.
   */
  async insertKeepingNewest(task: NewTask, keep: number): Promise<{ task: Task; evicted: number; deduplicated: boolean }> {
    const t = this.db.table('tasks');
    await this.db.lock('tasks');
    const row = await this.db.one<TaskRow>(
      `INSERT INTO ${t} (from_address, subject, body, received_at, priority, category, sentiment, summary, action_required,
         due_suggestion, shipment_ref, containers, bills_of_lading, bookings, classified_by, message_id, dedupe_key, refinement, refine_after)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, CASE WHEN $18::text IS NULL THEN NULL ELSE now() END)
       ON CONFLICT (dedupe_key) DO NOTHING
       RETURNING ${COLUMNS}`,
      [task.from, task.subject, task.body, task.receivedAt, task.priority, task.category, task.sentiment, task.summary,
        task.actionRequired, task.dueSuggestion, task.shipmentRef, task.containers, task.billsOfLading, task.bookings, task.classifiedBy,
        task.messageId, task.dedupeKey, task.refinement],
    );
    if (!row) {
      const existing = await this.db.one<TaskRow>(`SELECT ${COLUMNS} FROM ${t} WHERE dedupe_key = $1`, [task.dedupeKey]);
      return { task: toTask(existing!), evicted: 0, deduplicated: true };
    }
    const evicted = await this.db.affected(
      `DELETE FROM ${t} WHERE seq < (SELECT min(seq) FROM (SELECT seq FROM ${t} ORDER BY seq DESC LIMIT $1) newest)`,
      [keep],
    );
    return { task: toTask(row), evicted, deduplicated: false };
  }

  /** Pending refinements that are due, leased to this replica for `leaseSeconds` (another replica skips them). */
  async claimRefinements(limit: number, leaseSeconds: number): Promise<TaskToRefine[]> {
    const rows = await this.db.claimDue<{ id: string; from_address: string; subject: string; body: string; received_at: Date; refine_attempts: number }>({
      table: this.db.table('tasks'),
      where: `refinement = 'pending' AND refine_after <= now()`,
      orderBy: 'refine_after ASC',
      limit,
      lease: { column: 'refine_lease', seconds: leaseSeconds },
      set: 'refine_attempts = refine_attempts + 1',
    });
    return rows.map((r) => ({ id: r.id, from: r.from_address, subject: r.subject, body: r.body, receivedAt: new Date(r.received_at), attempts: r.refine_attempts }));
  }

  /** The model's classification replaces the rules' (status, assignee and notes are the team's and stay). Null when the task is gone. */
  async applyRefinement(id: string, fields: RefinedFields | null): Promise<Task | null> {
    const row = fields
      ? await this.db.one<TaskRow>(
          `UPDATE ${this.db.table('tasks')} SET priority = $2, category = $3, sentiment = $4, summary = $5, action_required = $6,
             due_suggestion = $7, classified_by = 'model', refinement = 'done', refine_lease = NULL, updated_at = now()
           WHERE id = $1 AND refinement = 'pending' RETURNING ${COLUMNS}`,
          [id, fields.priority, fields.category, fields.sentiment, fields.summary, fields.actionRequired, fields.dueSuggestion],
        )
      : await this.db.one<TaskRow>(
          `UPDATE ${this.db.table('tasks')} SET refinement = 'done', refine_lease = NULL WHERE id = $1 AND refinement = 'pending' RETURNING ${COLUMNS}`,
          [id],
        );
    return row ? toTask(row) : null;
  }

  /** A failed attempt: due again after `retryInSeconds`, or `failed` for good (the rules' classification stays). */
  async refinementFailed(id: string, retryInSeconds: number | null): Promise<void> {
    await this.db.affected(
      retryInSeconds === null
        ? `UPDATE ${this.db.table('tasks')} SET refinement = 'failed', refine_lease = NULL WHERE id = $1 AND refinement = 'pending'`
        : `UPDATE ${this.db.table('tasks')} SET refine_after = now() + make_interval(secs => $2), refine_lease = NULL WHERE id = $1 AND refinement = 'pending'`,
      retryInSeconds === null ? [id] : [id, retryInSeconds],
    );
  }

  async list(filter: TaskFilter): Promise<{ tasks: Task[]; total: number }> {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (filter.status) add('status = ?', filter.status);
    if (filter.priority) add('priority = ?', filter.priority);
    if (filter.category) add('category = ?', filter.category);
    if (filter.search) {
      params.push(`%${escapeLike(filter.search)}%`);
      const p = `$${params.length}`;
      const fields = ['subject', 'body', 'from_address', 'summary', "coalesce(shipment_ref, '')", "coalesce(assigned_to, '')", "coalesce(notes, '')"];
      where.push(`(${fields.map((f) => `${f} ILIKE ${p} ESCAPE '\\'`).join(' OR ')})`);
    }
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    params.push(filter.limit);
    const rows = await this.db.rows<TaskRow & { total: string }>(
      `SELECT ${COLUMNS}, count(*) OVER () AS total FROM ${this.db.table('tasks')} ${clause} ORDER BY seq DESC LIMIT $${params.length}`,
      params,
    );
    const total = rows.length ? Number(rows[0].total) : await this.count(clause, params.slice(0, -1));
    return { tasks: rows.map(toTask), total };
  }

  private async count(clause: string, params: unknown[]): Promise<number> {
    const row = await this.db.one<{ n: string }>(`SELECT count(*) AS n FROM ${this.db.table('tasks')} ${clause}`, params);
    return Number(row?.n ?? 0);
  }

  async findById(id: string): Promise<Task | null> {
    const row = await this.db.one<TaskRow>(`SELECT ${COLUMNS} FROM ${this.db.table('tasks')} WHERE id = $1`, [id]);
    return row ? toTask(row) : null;
  }

  /** The tasks with these ids, locked for update until the transaction ends. */
  async lockByIds(ids: string[]): Promise<Task[]> {
    const rows = await this.db.rows<TaskRow>(
      `SELECT ${COLUMNS} FROM ${this.db.table('tasks')} WHERE id = ANY($1::uuid[]) ORDER BY seq FOR UPDATE`,
      [ids],
    );
    return rows.map(toTask);
  }

  async update(ids: string[], changes: TaskChanges): Promise<Task[]> {
    const sets: string[] = [];
    const params: unknown[] = [ids];
    const set = (column: string, value: unknown) => {
      params.push(value);
      sets.push(`${column} = $${params.length}`);
    };
    if (changes.status !== undefined) set('status', changes.status);
    if (changes.priority !== undefined) set('priority', changes.priority);
    if (changes.assignedTo !== undefined) set('assigned_to', changes.assignedTo);
    if (changes.notes !== undefined) set('notes', changes.notes);
    sets.push('updated_at = now()');
    const rows = await this.db.rows<TaskRow>(
      `UPDATE ${this.db.table('tasks')} SET ${sets.join(', ')} WHERE id = ANY($1::uuid[]) RETURNING ${COLUMNS}`,
      params,
    );
    return rows.map(toTask);
  }

  async delete(id: string): Promise<boolean> {
    return (await this.db.affected(`DELETE FROM ${this.db.table('tasks')} WHERE id = $1`, [id])) > 0;
  }

  async counts(): Promise<TaskCounts> {
    const rows = await this.db.rows<{ dimension: string; value: string; n: string }>(
      `SELECT 'status' AS dimension, status AS value, count(*) AS n FROM ${this.db.table('tasks')} GROUP BY status
       UNION ALL SELECT 'priority', priority, count(*) FROM ${this.db.table('tasks')} GROUP BY priority
       UNION ALL SELECT 'category', category, count(*) FROM ${this.db.table('tasks')} GROUP BY category`,
    );
    const counts: TaskCounts = { total: 0, by_status: {}, by_priority: {}, by_category: {} };
    for (const r of rows) {
      const n = Number(r.n);
      if (r.dimension === 'status') {
        counts.by_status[r.value] = n;
        counts.total += n;
      } else if (r.dimension === 'priority') counts.by_priority[r.value] = n;
      else counts.by_category[r.value] = n;
    }
    return counts;
  }

  /** Distinct shipment references named by tasks. */
  async referenceCounts(): Promise<{ containers: number; bills_of_lading: number; bookings: number }> {
    const t = this.db.table('tasks');
    const row = await this.db.one<{ containers: string; bills: string; bookings: string }>(
      `SELECT (SELECT count(DISTINCT c) FROM ${t}, unnest(containers) c) AS containers,
              (SELECT count(DISTINCT b) FROM ${t}, unnest(bills_of_lading) b) AS bills,
              (SELECT count(DISTINCT k) FROM ${t}, unnest(bookings) k) AS bookings`,
    );
    return { containers: Number(row?.containers ?? 0), bills_of_lading: Number(row?.bills ?? 0), bookings: Number(row?.bookings ?? 0) };
  }
}
