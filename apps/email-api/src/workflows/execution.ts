import type { StepType } from './step-config';

/**
 * Workflow executions as the API shows them, and the engine's rules that need no I/O.
 *
 * ```
 *            start (event, segment entry/exit, manual)
 *                 │
 *                 ▼
 *   ┌──────────► RUNNING ──── step fails, tries left ──► RUNNING (due after the backoff)
 *   │  wake-up,   │  │  └──── step fails, no tries left ─► FAILED
 *   │  event or   │  │
 *   │  timeout    │  └──── DELAY / WAIT_FOR_EVENT ──► WAITING ─┐
 *   └─────────────┼────────────────────────────────────────────┘
 *                 ├── no next step ──► COMPLETED (a WAIT_FOR_EVENT timeout without `timeout` branch too, exitReason 'timeout')
 *                 └── EXIT step ─────► EXITED (exitReason)
 *   RUNNING / WAITING ── cancel ──► CANCELLED;  ── ?exitWaiting=true on a step edit ──► EXITED
 * ```
 */
export const EXECUTION_STATUSES = ['RUNNING', 'WAITING', 'COMPLETED', 'EXITED', 'FAILED', 'CANCELLED'] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];
export const ACTIVE_STATUSES: readonly ExecutionStatus[] = ['RUNNING', 'WAITING'];

export const STEP_RUN_STATUSES = ['PENDING', 'RUNNING', 'WAITING', 'COMPLETED', 'FAILED', 'SKIPPED'] as const;
export type StepRunStatus = (typeof STEP_RUN_STATUSES)[number];

/** What started an execution; `data` is what CONDITION's `event.<key>` reads. */
export interface ExecutionTrigger {
  type: 'EVENT' | 'SEGMENT_ENTRY' | 'SEGMENT_EXIT' | 'MANUAL';
  eventName?: string;
  eventId?: string;
  data: Record<string, unknown>;
}

export interface Execution {
  id: string;
  workflowId: string;
  contactId: string;
  status: ExecutionStatus;
  currentStepId: string | null;
  context: Record<string, unknown>;
  trigger: ExecutionTrigger;
  exitReason: string | null;
  error: string | null;
  /** WAITING: when the engine resumes it (a DELAY's end, a WAIT_FOR_EVENT's timeout); null otherwise. */
  resumeAt: Date | null;
  /** WAITING at a WAIT_FOR_EVENT: the event name it waits for. */
  waitingFor: string | null;
  createdAt: Date;
  updatedAt: Date;
  endedAt: Date | null;
}

export interface StepRun {
  id: string;
  seq: number;
  stepId: string | null;
  stepType: StepType;
  stepName: string;
  status: StepRunStatus;
  input: unknown;
  output: unknown;
  error: string | null;
  attempts: number;
  startedAt: Date;
  completedAt: Date | null;
}

/** A failing step is tried this many times in all (the first try and 4 retries), then the execution FAILS. */
export const MAX_STEP_ATTEMPTS = 5;
/** Backoff before retry n (n = 1 after the first failure): 30 s, 1 min, 2 min, 4 min (doubling, capped at 1 h). */
export function retryDelayMs(failedAttempts: number): number {
  return Math.min(30_000 * 2 ** (failedAttempts - 1), 3_600_000);
}

/** Steps one claim runs for an execution before handing it back (a loop of instant steps cannot hold a worker). */
export const MAX_STEPS_PER_CLAIM = 50;
