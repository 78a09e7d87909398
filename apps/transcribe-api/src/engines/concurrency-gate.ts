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

interface Waiter {
  resolve: () => void;
  reject: (err: unknown) => void;
  timer?: NodeJS.Timeout;
}

const RECENT = 20;

export class ConcurrencyGate {
  private running = 0;
  private readonly waiters: Waiter[] = [];
  private readonly recent: number[] = [];
  private readonly now: () => number;

  constructor(private readonly opts: ConcurrencyGateOptions) {
    this.now = opts.now ?? (() => performance.now());
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
    return this.recent.length ? this.recent.reduce((a, b) => a + b, 0) / this.recent.length : this.opts.defaultCallSeconds;
  }

  /** Seconds until a newcomer would likely get a slot. */
  retryAfterSeconds(): number {
    const ahead = this.running + this.waiters.length - this.opts.limit + 1;
    return Math.max(1, Math.ceil((Math.max(1, ahead) / this.opts.limit) * this.averageSeconds));
  }

  /** Runs `fn` in a slot; waits for one (bounded), or throws GateClosedError. `signal` ends the wait when the caller leaves. */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    const started = this.now();
    try {
      return await fn();
    } finally {
      this.recent.unshift((this.now() - started) / 1000);
      this.recent.length = Math.min(this.recent.length, RECENT);
      this.release();
    }
  }

  private acquire(signal?: AbortSignal): Promise<void> {
    if (this.running < this.opts.limit && !this.waiters.length) {
      this.running += 1;
      return Promise.resolve();
    }
    if (this.waiters.length >= this.opts.queueSize || this.opts.maxWaitMs <= 0) {
      return Promise.reject(new GateClosedError('busy', this.retryAfterSeconds()));
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
      waiter.timer = setTimeout(() => leave(new GateClosedError('timeout', this.retryAfterSeconds())), this.opts.maxWaitMs);
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
