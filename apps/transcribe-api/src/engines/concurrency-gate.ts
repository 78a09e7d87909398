/**
 * A bound on concurrent synchronous calls to one engine (whisper-asr-webservice #50: every call
 * holds GPU memory). Up to `limit` calls run; up to `queueSize` more wait in arrival order, each at
 * most `maxWaitMs`; anything beyond is refused at once. A refusal carries a `Retry-After` estimate:
 * the calls ahead of a newcomer, shared among the slots, each taking the mean time of the recent
 * calls. No I/O: the clock is injectable.
 */

export class GateClosedError extends Error {
  constructor(
    /** `busy`: the waiting line is full; `timeout`: waited maxWaitMs without a free slot */
    readonly reason: 'busy' | 'timeout',
    readonly retryAfterSeconds: number,
    /** calls running and waiting when the newcomer was refused (the gate's whole count: across processes for a shared one) */
    readonly active: number,
    readonly waiting: number,
  ) {
    super(reason === 'busy' ? 'every slot is taken and the waiting line is full' : 'no slot became free in time');
    this.name = 'GateClosedError';
  }
}

export interface ConcurrencyGateOptions {
  limit: number;
  queueSize: number;
  maxWaitMs: number;
  /** seconds one call is assumed to take before any finished */
  defaultCallSeconds: number;
  now?: () => number;
}

/** What bounds the synchronous calls to one engine: this process's gate, or one shared through Redis (SharedConcurrencyGate). */
export interface SyncGate {
  /** Runs `fn` in a slot; waits for one (bounded), or throws GateClosedError. `signal` ends the wait when the caller leaves. */
  run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** This process's calls in a slot, and waiting for one. */
  readonly active: number;
  readonly waiting: number;
}

/**
 * Seconds until a newcomer would likely get a slot: the calls ahead of it (running and waiting,
 * beyond the slots), shared among the slots, each taking `averageSeconds`; at least 1.
 */
export function retryAfterSeconds(running: number, waiting: number, limit: number, averageSeconds: number): number {
  const ahead = running + waiting - limit + 1;
  return Math.max(1, Math.ceil((Math.max(1, ahead) / limit) * averageSeconds));
}

const RECENT = 20;

/** The durations of the last RECENT calls, and their mean (`defaultSeconds` before any finished). */
export class RecentCalls {
  private readonly seconds: number[] = [];

  constructor(private readonly defaultSeconds: number) {}

  note(seconds: number): void {
    this.seconds.unshift(seconds);
    this.seconds.length = Math.min(this.seconds.length, RECENT);
  }

  get average(): number {
    return this.seconds.length ? this.seconds.reduce((a, b) => a + b, 0) / this.seconds.length : this.defaultSeconds;
  }
}

interface Waiter {
  resolve: () => void;
  reject: (err: unknown) => void;
  timer?: NodeJS.Timeout;
}


export class ConcurrencyGate implements SyncGate {
  private running = 0;
  private readonly waiters: Waiter[] = [];
  private readonly recent: RecentCalls;
  private readonly now: () => number;

  constructor(private readonly opts: ConcurrencyGateOptions) {
    this.now = opts.now ?? (() => performance.now());
    this.recent = new RecentCalls(opts.defaultCallSeconds);
  }

  get active(): number {
    return this.running;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  get limit(): number {
    return this.opts.limit;
  }

  /** Mean seconds of the recent calls, or the default before any finished. */
  get averageSeconds(): number {
    return this.recent.average;
  }

  private closed(reason: 'busy' | 'timeout'): GateClosedError {
    return new GateClosedError(reason, retryAfterSeconds(this.running, this.waiters.length, this.opts.limit, this.averageSeconds), this.running, this.waiters.length);
  }

  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    const started = this.now();
    try {
      return await fn();
    } finally {
      this.recent.note((this.now() - started) / 1000);
      this.release();
    }
  }

  private acquire(signal?: AbortSignal): Promise<void> {
    if (this.running < this.opts.limit && !this.waiters.length) {
      this.running += 1;
      return Promise.resolve();
    }
    if (this.waiters.length >= this.opts.queueSize || this.opts.maxWaitMs <= 0) {
      return Promise.reject(this.closed('busy'));
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject };
      const leave = (err: unknown) => {
        const index = this.waiters.indexOf(waiter);
        if (index < 0) return;
        this.waiters.splice(index, 1);
        clearTimeout(waiter.timer);
        reject(err);
      };
      waiter.timer = setTimeout(() => leave(this.closed('timeout')), this.opts.maxWaitMs);
      waiter.timer.unref?.();
      signal?.addEventListener('abort', () => leave(signal.reason), { once: true });
      this.waiters.push(waiter);
    });
  }

  private release(): void {
    const next = this.waiters.shift();
    if (next) {
      clearTimeout(next.timer);
      next.resolve(); // the slot passes straight to the next caller
      return;
    }
    this.running -= 1;
  }
}
