import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { OutboxRelay } from '@platform/messaging';
import { SERVICE_NAME } from '@platform/platform';
import { AutomationConfig } from '../config';
import { ClicksRepository } from './clicks.repository';

/** Clicks counted by one statement at most. */
export const CLICK_COUNT_MAX = 500;
/**
 * How long after a click is stored its counting starts at the latest: the clicks stored meanwhile
 * are counted by the same statement, whose cost is mostly fixed (tens of clicks under load).
 */
export const CLICK_COUNT_DELAY_MS = 25;
/** How long the outbox rows of a counting round stay claimed for the counter that publishes them; then the relay takes them. */
export const CLICK_EVENTS_LEASE_SECONDS = 60;

/**
 * Counts the stored clicks (ClicksRepository.countStored: run counter, contact tag, Event, outbox
 * event `automation.link_clicked`) off the redirect's path, many per statement: woken after each
 * click statement commits, it counts everything stored so far, again while clicks keep arriving, so
 * under load a round holds the clicks of many redirects. It publishes the round's events itself
 * once the round committed (`OutboxRelay.publishClaimed`: the outbox rows are written claimed by
 * it, so no relay round claims them again; an event it could not publish goes back to the relay at
 * once, and the relay takes them all should the process stop first: at least once, as the relay).
 * It also polls, for clicks stored by a replica that stopped before counting them (any replica
 * counts them, once). On shutdown it finishes its round, counts what was stored until then and
 * waits for its publishes.
 */
@Injectable()
export class ClickCounter implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ClickCounter.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private due?: NodeJS.Timeout;
  private again = false;
  private stopped = false;
  private readonly publishing = new Set<Promise<void>>();

  constructor(
    private readonly repo: ClicksRepository,
    private readonly relay: OutboxRelay,
    @Inject(SERVICE_NAME) private readonly serviceName: string,
    @Inject(AutomationConfig) private readonly config: AutomationConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.wake(), Math.max(1_000, this.config.AUTOMATION_POLL_MS * 5));
    this.timer.unref?.();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.due) clearTimeout(this.due);
    await this.running;
    this.stopped = true;
    await this.countAll().catch((err) => this.logger.warn(`click counting on shutdown: ${(err as Error).message}`));
    await Promise.all(this.publishing);
  }

  /** Counts within CLICK_COUNT_DELAY_MS (coalesced with a round already due or running, which then goes again). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.due) return;
    this.due = setTimeout(() => {
      this.due = undefined;
      if (!this.running && !this.stopped) this.running = this.loop().finally(() => (this.running = undefined));
    }, CLICK_COUNT_DELAY_MS);
  }

  /** Counts every click stored and not yet counted, and publishes their events (tests; a round already running finishes first). */
  async countNow(): Promise<void> {
    await this.running;
    await this.countAll();
    await Promise.all(this.publishing);
  }

  private async loop(): Promise<void> {
    try {
      await this.countAll();
    } catch (err) {
      this.logger.warn(`click counting: ${(err as Error).message}`);
      return;
    }
    // Clicks stored meanwhile: the next round after the delay, with those that follow.
    if (this.again) {
      this.again = false;
      setImmediate(() => this.wake());
    }
  }

  private async countAll(): Promise<void> {
    for (;;) {
      const round = await this.repo.countStored(CLICK_COUNT_MAX, this.serviceName, CLICK_EVENTS_LEASE_SECONDS);
      if (round.events.length > 0) {
        const published = this.relay.publishClaimed(round.events).finally(() => this.publishing.delete(published));
        this.publishing.add(published);
      }
      if (round.counted < CLICK_COUNT_MAX) return;
    }
  }
}
