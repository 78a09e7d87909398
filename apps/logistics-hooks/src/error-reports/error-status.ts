/**
 * Error record states (spec: `open`, `fix proposed`, `resolved`) and the moves between them:
 *
 *   open ──→ fix proposed ──→ resolved
 *    ↑  └────────────────────────↑ │
 *    └──────── (reopen) ───────────┘   fix proposed → open (the fix was rejected)
 *
 * Allowed: open → fix proposed, open → resolved, fix proposed → resolved, fix proposed → open,
 * resolved → open, and the state a record already has. Refused: resolved → fix proposed (reopen
 * first). A new report of a resolved error reopens it (a regression).
 */
export const ERROR_STATES = ['open', 'fix proposed', 'resolved'] as const;
export type ErrorState = (typeof ERROR_STATES)[number];

const ALLOWED: Record<ErrorState, readonly ErrorState[]> = {
  open: ['open', 'fix proposed', 'resolved'],
  'fix proposed': ['fix proposed', 'resolved', 'open'],
  resolved: ['resolved', 'open'],
};

export function canMoveError(from: ErrorState, to: ErrorState): boolean {
  return ALLOWED[from].includes(to);
}

export function allowedErrorMoves(from: ErrorState): readonly ErrorState[] {
  return ALLOWED[from];
}
