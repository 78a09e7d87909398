import { Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';

/**
 * A loop that works off due rows of a table: runs `tick()` until it finds nothing, then sleeps for
 * the poll interval or until `wake()` (called after this process enqueued work; other replicas
 * find it on their next poll). The due state lives in the database, so a restart loses nothing.
 * Stops on shutdown after the current tick.
 */
export abstract class PollingWorker implements OnApplicationBootstrap, OnModuleDestroy {
  protected abstract readonly logger: Logger;
  private stopped = false;
  private sleeping: { timer: NodeJS.Timeout; resolve: () => void } | null = null;
  private woken = false;
  private loop: Promise<void> | null = null;

  protected constructor(private readonly pollMs: number) {}

  /** Processes one batch; resolves with how many items it handled (0: nothing due). */
  protected abstract tick(): Promise<number>;

  /** False turns the worker off (e.g. nothing to do in this configuration). */
  protected enabled(): boolean {
    return true;
  }

  onApplicationBootstrap(): void {
    if (!this.enabled()) return;
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

  /** Runs ticks until nothing is due (tests, benchmarks); resolves with the number of items handled. */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.tick();
      total += n;
      if (n === 0) return total;
    }
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      this.woken = false;
      let handled = 0;
      try {
        handled = await this.tick();
      } catch (err) {
        if (!this.stopped) this.logger.error(`worker tick failed: ${(err as Error).message}`, (err as Error).stack);
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
