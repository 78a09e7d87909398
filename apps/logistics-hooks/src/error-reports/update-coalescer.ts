/**
 * At most one send per key per interval (the dashboards' `error_updated`: one per record per second).
 * The first update of a key goes out at once; updates inside the interval after a send are held and
 * only the latest of them goes out when the interval ends (trailing edge), so a burst of 100 repeats
 * gives two messages, the last carrying the final count. Plain class; the clock and timers are
 * injectable for tests.
 */
export interface CoalescerClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const SYSTEM_CLOCK: CoalescerClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const timer = setTimeout(fn, ms);
    timer.unref?.();
    return timer;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export class UpdateCoalescer<T> {
  private readonly lastSent = new Map<string, number>();
  private readonly pending = new Map<string, { value: T; timer: unknown }>();

  constructor(
    private readonly intervalMs: number,
    private readonly send: (key: string, value: T) => void,
    private readonly clock: CoalescerClock = SYSTEM_CLOCK,
  ) {}

  push(key: string, value: T): void {
    const held = this.pending.get(key);
    if (held) {
      held.value = value;
      return;
    }
    const now = this.clock.now();
    const last = this.lastSent.get(key);
    if (last === undefined || now - last >= this.intervalMs) {
      this.emit(key, value, now);
      return;
    }
    const timer = this.clock.setTimeout(() => {
      const entry = this.pending.get(key);
      this.pending.delete(key);
      if (entry) this.emit(key, entry.value, this.clock.now());
    }, last + this.intervalMs - now);
    this.pending.set(key, { value, timer });
  }

  /** Forgets a key (its record was deleted): a held update is dropped. */
  forget(key: string): void {
    const held = this.pending.get(key);
    if (held) this.clock.clearTimeout(held.timer);
    this.pending.delete(key);
    this.lastSent.delete(key);
  }

  /** Drops every held update (shutdown). */
  clear(): void {
    for (const { timer } of this.pending.values()) this.clock.clearTimeout(timer);
    this.pending.clear();
    this.lastSent.clear();
  }

  private emit(key: string, value: T, now: number): void {
    this.lastSent.set(key, now);
    // keys idle for a whole interval need no memory: the next update goes out at once anyway
    for (const [k, at] of this.lastSent) if (now - at >= this.intervalMs && k !== key) this.lastSent.delete(k);
    this.send(key, value);
  }
}
