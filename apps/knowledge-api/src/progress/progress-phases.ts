/**
 * The crawl progress of the spec: phases in this order, each owning a slice of 0–100.
 *
 *   analyzing 0–5 → crawling 5–25 → processing 25–30 → source_creation 30–35
 *   → document_storage 35–90 → code_storage 90–95 → finalization 95–100 → completed (100)
 *
 * `error` and `cancelled` end a crawl at the percentage it had reached (never lower, never −1).
 * A tracker maps "phase + fraction done" to a percentage and never lets it go back, even when the
 * total of a phase grows while it runs (a recursive crawl discovers pages as it goes), or when
 * another replica takes a crawl over from the start.
 */
export const PHASES = [
  { status: 'analyzing', from: 0, to: 5 },
  { status: 'crawling', from: 5, to: 25 },
  { status: 'processing', from: 25, to: 30 },
  { status: 'source_creation', from: 30, to: 35 },
  { status: 'document_storage', from: 35, to: 90 },
  { status: 'code_storage', from: 90, to: 95 },
  { status: 'finalization', from: 95, to: 100 },
] as const;

/**
 * The phases of a project's creation (a job of kind `project`), in the same shape: sources checked
 * and linked, features and tasks drafted by the chat model, the documents made, all stored.
 */
export const PROJECT_PHASES = [
  { status: 'analyzing', from: 0, to: 10 },
  { status: 'source_linking', from: 10, to: 20 },
  { status: 'ai_generation', from: 20, to: 70 },
  { status: 'generating_docs', from: 70, to: 80 },
  { status: 'saving_to_database', from: 80, to: 95 },
  { status: 'finalization', from: 95, to: 100 },
] as const;

export type PhaseStatus = (typeof PHASES)[number]['status'] | (typeof PROJECT_PHASES)[number]['status'];
type PhaseTable = ReadonlyArray<{ status: PhaseStatus; from: number; to: number }>;

/** The phase table of a job kind (`project`: PROJECT_PHASES; crawls and the other jobs: PHASES). */
export function phasesFor(kind: string): PhaseTable {
  return kind === 'project' ? PROJECT_PHASES : PHASES;
}
export type FinalStatus = 'completed' | 'error' | 'cancelled';
export type ProgressStatus = 'queued' | PhaseStatus | FinalStatus;

export const FINAL_STATUSES: readonly FinalStatus[] = ['completed', 'error', 'cancelled'];

export function isFinal(status: string): status is FinalStatus {
  return (FINAL_STATUSES as readonly string[]).includes(status);
}

/** Percentage of `fraction` (0…1) of `phase`, rounded down to a whole number. */
export function phasePercentage(phase: PhaseStatus, fraction: number, phases: PhaseTable = PHASES): number {
  const p = phases.find((x) => x.status === phase);
  if (!p) throw new Error(`unknown phase ${phase}`);
  const f = Number.isFinite(fraction) ? Math.min(1, Math.max(0, fraction)) : 0;
  return Math.floor(p.from + (p.to - p.from) * f);
}

export class PhaseTracker {
  private phaseIndex = -1;

  constructor(
    private last = 0,
    private readonly phases: PhaseTable = PHASES,
  ) {}

  get percentage(): number {
    return this.last;
  }

  get status(): PhaseStatus | null {
    return this.phaseIndex < 0 ? null : this.phases[this.phaseIndex].status;
  }

  /** Moves to `phase` (never back to an earlier one) at `fraction` of it; returns the percentage. */
  advance(phase: PhaseStatus, fraction = 0): number {
    const index = this.phases.findIndex((p) => p.status === phase);
    if (index < 0) throw new Error(`unknown phase ${phase}`);
    if (index < this.phaseIndex) throw new Error(`progress cannot go back from ${this.status} to ${phase}`);
    this.phaseIndex = index;
    this.last = Math.max(this.last, phasePercentage(phase, fraction, this.phases));
    return this.last;
  }

  complete(): number {
    this.phaseIndex = this.phases.length - 1;
    this.last = 100;
    return this.last;
  }
}

/** The spec's batch log line. */
export function batchLine(batch: number, batches: number, first: number, last: number, total: number): string {
  return `Batch ${batch}/${batches}: Processing items ${first}-${last} of ${total}`;
}
