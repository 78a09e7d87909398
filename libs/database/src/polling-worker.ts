import { Inject, Logger, Optional, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { SERVICE_MODE, type ServiceMode } from '@platform/platform';

/**
 * The one loop for scheduled work: runs `tick()` until it finds nothing, then sleeps for the poll
 * interval or until `wake()` (called after this process enqueued work; other replicas find it on
 * their next poll). `tick()` claims its rows with `db.claimDue` (FOR UPDATE SKIP LOCKED with a
 * lease), so several replicas share the work and a crashed replica's rows come back; the due state
 * lives in the database, so a restart loses nothing. Starts when the app has started serving (never
 * in `node main.js migrate` or another command), logs a failed tick and goes on, and stops on
 * shutdown after the running tick.
 */
export abstract class PollingWorker implements OnApplicationBootstrap, OnModuleDestroy {
  protected abstract readonly logger: Logger;

  @Optional() @Inject(SERVICE_MODE) private readonly serviceMode?: ServiceMode;

  private stopped = false;
  private sleeping: { timer: NodeJS.Timeout; resolve: () => void } | null = null;
  private woken = false;
  private loop: Promise<void> | null = null;
  private current: Promise<number> | null = null;

  protected constructor(private readonly pollMs: number) {}

  /** Processes one batch; resolves with how many items it handled (0: nothing due). */
  protected abstract tick(): Promise<number>;

  /** False turns the worker off (e.g. nothing to do in this configuration). */
  protected enabled(): boolean {
    return true;
  }

  onApplicationBootstrap(): void {
    if (this.serviceMode === 'command' || !this.enabled()) return;
    this.loop = this.run();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.loop;
  }

  /** Work was enqueued: run a tick now instead of at the next poll. */
  wake(): void {
    this.woken = true;
    if (this.sleeping) {
      clearTimeout(this.sleeping.timer);
      this.sleeping.resolve();
    }
  }

  /**
   * Runs ticks until nothing is due and the loop is not in a tick either (tests, tools): a tick the
   * loop started meanwhile may hold rows that its own ticks skipped (SKIP LOCKED), so it is waited
   * for and looked again. Resolves with the number of items handled by its own ticks.
   */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      await this.current?.catch(() => undefined);
      const n = await this.tick();
      total += n;
      if (n === 0 && this.current === null) return total;
    }
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      this.woken = false;
      let handled = 0;
      try {
        handled = await (this.current = this.tick());
      } catch (err) {
        if (!this.stopped) this.logger.error(`worker tick failed: ${(err as Error).message}`, (err as Error).stack);
      } finally {
        this.current = null;
      }
      if (this.stopped) break;
      if (handled > 0 || this.woken) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.pollMs);
        timer.unref();
        this.sleeping = { timer, resolve };
      });
      this.sleeping = null;
    }
  }
}
