import type { Clock, RateBudget, Release } from './call-budget';
import type { BudgetKind, BudgetWindow, RateBudgetsRepository } from './rate-budgets.repository';

/** Longest sleep between two looks at a used-up budget (another replica may give a slot back). */
const MAX_POLL_MS = 5_000;

/**
 * An hourly budget shared by every replica: a counter row per (account, kind, window) in
 * `rate_budgets` (RateBudgetsRepository, one atomic statement per slot taken), windows aligned to
 * the hour (`windowMs`). Giving a slot back decrements the counter of the window the slot came from.
 *
 * The windows are fixed (clock hours), not sliding: up to `limit` calls may fall on each side of an
 * hour boundary. Time is this process' clock; replicas are expected to run NTP-synchronised clocks.
 */
export class PgRateBudget implements RateBudget {
  /** Window end (epoch ms) until which this process saw the budget used up. */
  private exhaustedUntil = 0;
  private disposed = false;
  private readonly sleepers = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();

  constructor(
    private readonly budgets: RateBudgetsRepository,
    readonly accountId: number,
    readonly kind: BudgetKind,
    readonly limit: number,
    readonly windowMs = 3_600_000,
    private readonly now: Clock = Date.now,
  ) {}

  private windowStart(at = this.now()): number {
    return Math.floor(at / this.windowMs) * this.windowMs;
  }

  private window(start: number): BudgetWindow {
    return { accountId: this.accountId, kind: this.kind, window: new Date(start) };
  }

  waitMs(): number {
    return Math.max(0, this.exhaustedUntil - this.now());
  }

  async checkWaitMs(): Promise<number> {
    const start = this.windowStart();
    const used = await this.budgets.used(this.window(start));
    if (used !== null && used >= this.limit) {
      this.exhaustedUntil = start + this.windowMs;
      return Math.max(1, this.exhaustedUntil - this.now());
    }
    this.exhaustedUntil = 0;
    return 0;
  }

  async take(): Promise<Release | null> {
    if (this.disposed) throw new Error('rate budget disposed (shutting down)');
    const start = this.windowStart();
    const window = this.window(start);
    const used = await this.budgets.take(window, this.limit);
    if (used === null || this.limit <= 0) {
      this.exhaustedUntil = start + this.windowMs;
      return null;
    }
    this.exhaustedUntil = 0;
    if (used === 1) void this.prune(start);
    let released = false;
    return () => {
      if (released) return Promise.resolve();
      released = true;
      this.exhaustedUntil = 0;
      return this.budgets.giveBack(window).then(() => undefined, () => undefined);
    };
  }

  async acquire(): Promise<Release> {
    for (;;) {
      const release = await this.take();
      if (release) return release;
      await this.sleep(Math.min(Math.max(1, this.waitMs()), MAX_POLL_MS));
    }
  }

  async count(): Promise<number> {
    return (await this.budgets.used(this.window(this.windowStart()))) ?? 0;
  }

  dispose(): void {
    this.disposed = true;
    for (const s of this.sleepers) {
      clearTimeout(s.timer);
      s.resolve();
    }
    this.sleepers.clear();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          this.sleepers.delete(entry);
          resolve();
        }, ms),
        resolve,
      };
      entry.timer.unref?.();
      this.sleepers.add(entry);
    });
  }

  /** Drops this account's rows older than a day (once per new window). */
  private async prune(start: number): Promise<void> {
    await this.budgets.prune(this.accountId, this.kind, new Date(start - 86_400_000)).catch(() => undefined);
  }
}
