/**
 * Per-account pacing of calls to the social platform: a sliding-window budget (calls per hour,
 * private replies per hour) and a limiter with bounded concurrency that queues calls (first in,
 * first out) instead of dropping them, and pauses an account while the platform throttles it.
 */

export type Clock = () => number;

/** Gives a slot back (a call that surely did not reach the platform). Idempotent. */
export type Release = () => void | Promise<void>;

/**
 * An hourly budget as the limiter and the client use it. Two implementations: `SlidingWindowBudget`
 * (in process: unit tests, tools) and `PgRateBudget` (`pg-rate-budget.ts`, shared by every replica
 * through PostgreSQL; the app uses it).
 */
export interface RateBudget {
  readonly limit: number;
  /** Milliseconds until a slot is expected to be free, from what this process knows (cheap, synchronous). */
  waitMs(): number;
  /** Milliseconds until a slot frees, asking the shared store when there is one (0 when one is free now). */
  checkWaitMs(): Promise<number>;
  /** Takes a slot when one is free, without waiting; null when the budget is used up. */
  take(): Promise<Release | null>;
  /** Waits for a slot. */
  acquire(): Promise<Release>;
  /** Acquisitions in the current window. */
  count(): Promise<number>;
  dispose(): void;
}

/** Thrown by a send that must not wait for the budget (`waitForBudget: false`). */
export class BudgetExhaustedError extends Error {
  constructor(readonly waitMs: number) {
    super(`budget used up; a slot frees in ${Math.ceil(waitMs / 1000)} s`);
  }
}

/** At most `limit` acquisitions per `windowMs`; waiters queue in order. */
export class SlidingWindowBudget implements RateBudget {
  private stamps: number[] = [];
  private waiters: Array<() => void> = [];
  private timer?: NodeJS.Timeout;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: Clock = Date.now,
  ) {}

  /** Acquisitions inside the current window. */
  used(): number {
    this.prune();
    return this.stamps.length;
  }

  /** Milliseconds until a slot frees up (0 when one is free now). */
  waitMs(): number {
    this.prune();
    if (this.stamps.length < this.limit) return 0;
    return this.stamps[0] + this.windowMs - this.now();
  }

  /** Takes a slot when one is free, without waiting. Returns the release function or null. */
  tryAcquire(): (() => void) | null {
    if (this.waiters.length > 0 || this.waitMs() > 0) return null;
    return this.takeSlot();
  }

  /** Waits (in order) for a slot. The returned function gives the slot back (a call that surely did not reach the platform). */
  acquire(): Promise<() => void> {
    const immediate = this.tryAcquire();
    if (immediate) return Promise.resolve(immediate);
    return new Promise((resolve) => {
      this.waiters.push(() => resolve(this.takeSlot()));
      this.schedule();
    });
  }

  checkWaitMs(): Promise<number> {
    return Promise.resolve(this.waitMs());
  }

  take(): Promise<Release | null> {
    return Promise.resolve(this.tryAcquire());
  }

  count(): Promise<number> {
    return Promise.resolve(this.used());
  }

  /** Rejects nothing, forgets everything (tests, shutdown). */
  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private takeSlot(): () => void {
    const stamp = this.now();
    this.stamps.push(stamp);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const i = this.stamps.indexOf(stamp);
      if (i >= 0) this.stamps.splice(i, 1);
      this.drain();
    };
  }

  private prune(): void {
    const cutoff = this.now() - this.windowMs;
    while (this.stamps.length && this.stamps[0] <= cutoff) this.stamps.shift();
  }

  private drain(): void {
    while (this.waiters.length && this.waitMs() === 0) this.waiters.shift()!();
    if (this.waiters.length) this.schedule();
  }

  private schedule(): void {
    if (this.timer) return;
    const delay = Math.max(1, this.waitMs());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.drain();
    }, delay);
    this.timer.unref?.();
  }
}

export interface LimiterOptions {
  concurrency: number;
  callsPerHour: number;
  windowMs?: number;
  now?: Clock;
  /** The hourly call budget; default an in-process SlidingWindowBudget of `callsPerHour`. */
  budget?: RateBudget;
}

export interface UsageSnapshot {
  /** Highest of call_count / total_cputime / total_time in percent, from X-Business-Use-Case-Usage or X-App-Usage. */
  percent: number;
  /** Minutes until access returns, as the platform estimates (0 when not throttled). */
  regainMinutes: number;
  at: string;
}

/**
 * Bounded concurrency + hourly call budget + pause while throttled, per account. The concurrency
 * and the pause are per process (a process can only bound its own open calls; the platform's pause
 * is learnt by whichever replica was throttled); the budget may be shared (`PgRateBudget`).
 */
export class AccountLimiter {
  readonly calls: RateBudget;
  private active = 0;
  private queue: Array<() => void> = [];
  private pausedUntil = 0;
  private timer?: NodeJS.Timeout;
  lastUsage?: UsageSnapshot;

  constructor(private readonly opts: LimiterOptions) {
    this.calls = opts.budget ?? new SlidingWindowBudget(opts.callsPerHour, opts.windowMs ?? 3_600_000, opts.now);
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  /** Milliseconds a new call would wait before it may start because of a pause or the budget (not counting queued calls). */
  expectedWaitMs(): number {
    return Math.max(0, this.pausedUntil - this.now(), this.calls.waitMs());
  }

  /** Calls waiting for a slot. */
  get queued(): number {
    return this.queue.length;
  }

  /** Stops starting new calls for `ms` (the platform throttled this account). */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.now() + ms);
  }

  get pausedForMs(): number {
    return Math.max(0, this.pausedUntil - this.now());
  }

  /** Runs `fn` when a concurrency slot and a budget slot are free. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    await new Promise<void>((resolve) => {
      this.queue.push(resolve);
      this.pump();
    });
    try {
      // The budget slot is taken once the call may start (a shared budget answers asynchronously);
      // a call slot is never given back: the call reached the platform or is uncertain.
      await this.calls.acquire();
      return await fn();
    } finally {
      this.active -= 1;
      this.pump();
    }
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.calls.dispose();
  }

  private pump(): void {
    while (this.active < this.opts.concurrency && this.queue.length) {
      const wait = this.expectedWaitMs();
      if (wait > 0) {
        if (!this.timer) {
          this.timer = setTimeout(() => {
            this.timer = undefined;
            this.pump();
          }, wait);
          this.timer.unref?.();
        }
        return;
      }
      this.active += 1;
      this.queue.shift()!();
    }
  }
}

/**
 * Reads `X-Business-Use-Case-Usage` (`{"<id>":[{call_count,total_cputime,total_time,estimated_time_to_regain_access}]}`)
 * or `X-App-Usage` (`{call_count,total_cputime,total_time}`).
 */
export function parseUsageHeaders(headers: Record<string, string | string[] | undefined>): UsageSnapshot | undefined {
  const values: Array<Record<string, unknown>> = [];
  const read = (name: string) => {
    const raw = headers[name];
    const text = Array.isArray(raw) ? raw[0] : raw;
    if (!text) return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return undefined;
    }
  };
  const buc = read('x-business-use-case-usage');
  if (buc && typeof buc === 'object') {
    for (const list of Object.values(buc as Record<string, unknown>)) {
      if (Array.isArray(list)) values.push(...(list.filter((x) => x && typeof x === 'object') as Array<Record<string, unknown>>));
    }
  }
  const app = read('x-app-usage');
  if (app && typeof app === 'object') values.push(app as Record<string, unknown>);
  if (values.length === 0) return undefined;
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  let percent = 0;
  let regainMinutes = 0;
  for (const v of values) {
    percent = Math.max(percent, num(v.call_count), num(v.total_cputime), num(v.total_time));
    regainMinutes = Math.max(regainMinutes, num(v.estimated_time_to_regain_access));
  }
  return { percent, regainMinutes, at: new Date().toISOString() };
}
