import type { Logger } from '@nestjs/common';

/**
 * Runs `tick` every `intervalMs` after the previous pass ended (never two passes at once), logs a
 * failed pass and goes on. `stop()` cancels the next pass and waits for the running one, so that
 * in-flight work ends before the app's pools close. The work itself is claimed in the database
 * (claimDue with leases), so several replicas can poll the same tables.
 */
export class PollingLoop {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = true;

  constructor(
    private readonly name: string,
    private readonly intervalMs: number,
    private readonly tick: () => Promise<unknown>,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick()
        .then(() => undefined)
        .catch((err) => this.logger.error(`${this.name}: ${(err as Error).message}`))
        .finally(() => {
          this.running = undefined;
          this.schedule();
        });
    }, this.intervalMs);
    this.timer.unref?.();
  }
}
