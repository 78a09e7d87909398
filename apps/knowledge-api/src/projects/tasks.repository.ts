import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { NewTask, TaskFilters, TaskRow, TaskStatus } from './projects.types';

const JSON_FIELDS = new Set(['sources', 'code_examples']);
const COLUMNS = new Set(['title', 'description', 'status', 'assignee', 'task_order', 'feature', 'parent_task_id', 'sources', 'code_examples', 'archived', 'archived_at', 'archived_by']);
const STATUS_ORDER = `CASE status WHEN 'todo' THEN 0 WHEN 'doing' THEN 1 WHEN 'review' THEN 2 ELSE 3 END`;

/**
 * Tasks of projects. `task_order` is a task's position (0, 1, …) among the unarchived tasks of its
 * project and status; the service keeps the positions dense under the project's lock.
 */
@Injectable()
export class TasksRepository {
  constructor(private readonly db: Database) {}

  private get tasks(): string {
    return this.db.table('tasks');
  }

  async insert(t: NewTask, order: number): Promise<TaskRow> {
    const row = await this.db.one<TaskRow>(
      `INSERT INTO ${this.tasks} (id, project_id, parent_task_id, title, description, status, assignee, task_order, feature, sources, code_examples)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (id) DO NOTHING RETURNING *`,
      [t.id, t.project_id, t.parent_task_id, t.title, t.description, t.status, t.assignee, order, t.feature, JSON.stringify(t.sources), JSON.stringify(t.code_examples)],
    );
    return row ?? (await this.find(t.id))!;
  }

  find(id: string): Promise<TaskRow | null> {
    return this.db.one<TaskRow>(`SELECT * FROM ${this.tasks} WHERE id = $1`, [id]);
  }

  /** The number of unarchived tasks in this column (the next free position). */
  async columnSize(projectId: string, status: TaskStatus): Promise<number> {
    const row = await this.db.one<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${this.tasks} WHERE project_id = $1 AND status = $2 AND NOT archived`,
      [projectId, status],
    );
    return row?.n ?? 0;
  }

  /** Moves the unarchived tasks of a column at or after `from` by `delta` (making or closing a gap). */
  async shift(projectId: string, status: TaskStatus, from: number, delta: 1 | -1, exceptId: string | null = null): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.tasks} SET task_order = task_order + $4
        WHERE project_id = $1 AND status = $2 AND NOT archived AND task_order >= $3 AND ($5::uuid IS NULL OR id <> $5)`,
      [projectId, status, from, delta, exceptId],
    );
  }

  async update(id: string, fields: Partial<Record<string, unknown>>): Promise<TaskRow | null> {
    const sets: string[] = [];
    const params: unknown[] = [id];
    for (const [key, value] of Object.entries(fields)) {
      if (!COLUMNS.has(key) || value === undefined) continue;
      params.push(JSON_FIELDS.has(key) ? JSON.stringify(value) : value);
      sets.push(`${key} = $${params.length}`);
    }
    sets.push('updated_at = now()');
    return this.db.one<TaskRow>(`UPDATE ${this.tasks} SET ${sets.join(', ')} WHERE id = $1 RETURNING *`, params);
  }

  /** The parent chain of a task (its parent, the parent's parent, …), to refuse cycles. */
  async ancestors(id: string): Promise<string[]> {
    const rows = await this.db.rows<{ id: string }>(
      `WITH RECURSIVE up(id, parent_task_id, depth) AS (
         SELECT id, parent_task_id, 0 FROM ${this.tasks} WHERE id = $1
         UNION ALL
         SELECT t.id, t.parent_task_id, up.depth + 1 FROM ${this.tasks} t JOIN up ON t.id = up.parent_task_id WHERE up.depth < 100
       ) SELECT id FROM up`,
      [id],
    );
    return rows.map((r) => r.id);
  }

  async list(f: TaskFilters, limit: number | null, offset: number): Promise<{ rows: TaskRow[]; total: number }> {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (f.project_id) add('project_id = ?', f.project_id);
    if (f.status) add('status = ?', f.status);
    if (f.assignee) add('assignee = ?', f.assignee);
    if (f.feature) add('feature = ?', f.feature);
    if (f.parent_task_id) add('parent_task_id = ?', f.parent_task_id);
    if (!f.include_archived) where.push('NOT archived');
    if (f.include_closed === false) where.push(`status <> 'done'`);
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const total = await this.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.tasks} ${clause}`, params);
    const rows = await this.db.rows<TaskRow>(
      `SELECT * FROM ${this.tasks} ${clause}
        ORDER BY project_id, ${STATUS_ORDER}, archived, task_order, created_at, id
        ${limit === null ? '' : `LIMIT ${Math.floor(limit)} OFFSET ${Math.floor(offset)}`}`,
      params,
    );
    return { rows, total: total?.n ?? 0 };
  }

  async countForProject(projectId: string): Promise<number> {
    const row = await this.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.tasks} WHERE project_id = $1`, [projectId]);
    return row?.n ?? 0;
  }

  /** Deletes every task of the project (archived ones too); returns how many. */
  deleteForProject(projectId: string): Promise<number> {
    return this.db.affected(`DELETE FROM ${this.tasks} WHERE project_id = $1`, [projectId]);
  }
}
