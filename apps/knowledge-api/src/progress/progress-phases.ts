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

export type PhaseStatus = (typeof PHASES)[number]['status'];
export type FinalStatus = 'completed' | 'error' | 'cancelled';
export type ProgressStatus = 'queued' | PhaseStatus | FinalStatus;

export const FINAL_STATUSES: readonly FinalStatus[] = ['completed', 'error', 'cancelled'];

export function isFinal(status: string): status is FinalStatus {
  return (FINAL_STATUSES as readonly string[]).includes(status);
}

/** Percentage of `fraction` (0…1) of `phase`, rounded down to a whole number. */
export function phasePercentage(phase: PhaseStatus, fraction: number): number {
  const p = PHASES.find((x) => x.status === phase)!;
  const f = Number.isFinite(fraction) ? Math.min(1, Math.max(0, fraction)) : 0;
  return Math.floor(p.from + (p.to - p.from) * f);
}

export class PhaseTracker {
  private phaseIndex = -1;

  constructor(private last = 0) {}

  get percentage(): number {
    return this.last;
  }

  get status(): PhaseStatus | null {
    return this.phaseIndex < 0 ? null : PHASES[this.phaseIndex].status;
  }

  /** Moves to `phase` (never back to an earlier one) at `fraction` of it; returns the percentage. */
  advance(phase: PhaseStatus, fraction = 0): number {
    const index = PHASES.findIndex((p) => p.status === phase);
    if (index < this.phaseIndex) throw new Error(`progress cannot go back from ${this.status} to ${phase}`);
    this.phaseIndex = index;
    this.last = Math.max(this.last, phasePercentage(phase, fraction));
    return this.last;
  }

  complete(): number {
    this.phaseIndex = PHASES.length - 1;
    this.last = 100;
    return this.last;
  }
}

/** The spec's batch log line. */
export function batchLine(batch: number, batches: number, first: number, last: number, total: number): string {
  return `Batch ${batch}/${batches}: Processing items ${first}-${last} of ${total}`;
}
