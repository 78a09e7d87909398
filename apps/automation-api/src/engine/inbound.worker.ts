import { Inject, Injectable, Logger } from '@nestjs/common';
import { PollingWorker } from '@platform/database';
import { Clock } from '../common/clock';
import { AutomationConfig } from '../config';
import { InboundRepository, type InboundRow } from './inbound.repository';
import { DeferredError, StaleRunError, isRetryable } from './engine-errors';
import { EngineService } from './engine.service';
import { retryDelayMs } from '../common/retry-delay';

const BATCH = 16;

/**
 * Drains the work queue (`inbound_events`): claims due items with a lease (claimDue, FOR UPDATE
 * SKIP LOCKED; one item per person at a time), processes them in parallel, and retries failures with
 * exponential backoff. Woken right after the webhook receiver stored something, polls otherwise, so
 * several replicas share the queue and a crashed replica's items come back when their lease ends.
 * In-flight items finish on shutdown (their sends are recorded as intents; anything unfinished
 * comes back after the lease).
 */
@Injectable()
export class InboundWorker extends PollingWorker {
  protected readonly logger = new Logger(InboundWorker.name);

  constructor(
    private readonly repo: InboundRepository,
    private readonly engine: EngineService,
    private readonly clock: Clock,
    @Inject(AutomationConfig) private readonly config: AutomationConfig,
  ) {
    super(config.AUTOMATION_POLL_MS);
  }

  private lastCleanup = 0;

  protected async tick(): Promise<number> {
    if (Date.now() - this.lastCleanup > 3_600_000) {
      this.lastCleanup = Date.now();
      // Processed items are kept a week: the platform redelivers for up to ~36 hours.
      await this.repo.deleteProcessed(7).catch((err) => this.logger.warn(`work queue cleanup: ${(err as Error).message}`));
    }
    const items = await this.repo.claim(this.clock.now(), BATCH, this.config.AUTOMATION_LEASE_SECONDS);
    await Promise.all(items.map((it) => this.handle(it)));
    return items.length;
  }

  private async handle(ev: InboundRow): Promise<void> {
    try {
      await this.engine.process(ev);
      await this.repo.markProcessed(ev.id);
    } catch (err) {
      await this.failed(ev, err).catch((e) => this.logger.error(`work item ${ev.id}: ${(e as Error).message}`));
    }
  }

  private async failed(ev: InboundRow, err: unknown): Promise<void> {
    const now = this.clock.now().getTime();
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof DeferredError) {
      await this.repo.reschedule(ev.id, new Date(now + err.delayMs), message, false);
      return;
    }
    if (err instanceof StaleRunError && ev.attempts + 1 < this.config.AUTOMATION_MAX_ATTEMPTS) {
      await this.repo.reschedule(ev.id, new Date(now), message, true);
      return;
    }
    const attempts = ev.attempts + 1;
    if (isRetryable(err) && attempts < this.config.AUTOMATION_MAX_ATTEMPTS) {
      const delay = retryDelayMs(this.config.AUTOMATION_RETRY_BASE_MS, attempts);
      this.logger.warn(`work item ${ev.id} (${ev.kind}) failed, retry in ${delay} ms: ${message}`);
      await this.repo.reschedule(ev.id, new Date(now + delay), message, true);
      return;
    }
    this.logger.warn(`work item ${ev.id} (${ev.kind}) failed for good: ${message}`);
    await this.engine.fail(ev, err);
    await this.repo.markProcessed(ev.id, message.slice(0, 2000));
  }
}
