/**
 * Task status moves. Tasks run PENDING → IN_PROGRESS → DONE:
 *
 *   PENDING ──→ IN_PROGRESS ──→ DONE
 *      └──────────────────────────↑
 *
 * Allowed: PENDING → IN_PROGRESS, IN_PROGRESS → DONE, PENDING → DONE (closed without work, e.g. a
 * duplicate), and setting the status a task already has (no change). Refused: every move back
 * (IN_PROGRESS → PENDING, DONE → anything else); a done task stays done.
 */
import { STATUSES, type TaskStatus } from './task-values';

const ALLOWED: Record<TaskStatus, readonly TaskStatus[]> = {
  PENDING: ['PENDING', 'IN_PROGRESS', 'DONE'],
  IN_PROGRESS: ['IN_PROGRESS', 'DONE'],
  DONE: ['DONE'],
};

export function isTaskStatus(value: unknown): value is TaskStatus {
  return typeof value === 'string' && (STATUSES as readonly string[]).includes(value);
}

export function canMoveTask(from: TaskStatus, to: TaskStatus): boolean {
  return ALLOWED[from].includes(to);
}

/** The statuses a task in `from` may be set to. */
export function allowedMoves(from: TaskStatus): readonly TaskStatus[] {
  return ALLOWED[from];
}
