/**
 * A circuit breaker for calls made while a client waits (query embeddings):
 *
 *   closed --(`failures` failures in a row)--> open --(`cooldownMs` passed)--> half-open
 *   half-open --(the one trial call succeeds)--> closed;  half-open --(it fails)--> open again
 *
 * While open, `allow()` is false and the caller answers without the call (search: full-text
 * results with a note). In half-open one call at a time is let through as the trial.
 * The clock is injected (tests).
 */
export type BreakerState = 'closed' | 'open' | 'half_open';

export class CircuitBreaker {
  private failuresInRow = 0;
  private openedAt: number | null = null;
  private trialRunning = false;

  constructor(
    private readonly opts: { failures: number; cooldownMs: number },
    private readonly now: () => number = Date.now,
  ) {}

  get state(): BreakerState {
    if (this.openedAt === null) return 'closed';
    return this.now() - this.openedAt >= this.opts.cooldownMs ? 'half_open' : 'open';
  }

  /** Whether a call may be made now (in half-open: the one trial). */
  allow(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'open' || this.trialRunning) return false;
    this.trialRunning = true;
    return true;
  }

  success(): void {
    this.failuresInRow = 0;
    this.openedAt = null;
    this.trialRunning = false;
  }

  failure(): void {
    this.trialRunning = false;
    this.failuresInRow++;
    if (this.openedAt !== null || this.failuresInRow >= this.opts.failures) this.openedAt = this.now();
  }

  /** When the breaker lets the next trial through (ISO), or null while closed. */
  retryAt(): string | null {
    return this.openedAt === null ? null : new Date(this.openedAt + this.opts.cooldownMs).toISOString();
  }
}
