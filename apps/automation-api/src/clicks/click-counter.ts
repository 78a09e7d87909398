import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { OutboxRelay } from '@platform/messaging';
import { SERVICE_NAME } from '@platform/platform';
import { AutomationConfig } from '../config';
import { ClicksRepository } from './clicks.repository';

/** Clicks counted by one statement at most. */
export const CLICK_COUNT_MAX = 500;
/**
 * How long after a click is stored its counting starts at the latest: the clicks stored meanwhile
 * are counted by the same statement, whose cost is mostly fixed (tens of clicks under load). A read
 * waiting for the clicks (ClicksCountedInterceptor) starts the round at once.
 */
export const CLICK_COUNT_DELAY_MS = 25;
/** How long the outbox rows of a counting round stay claimed for the counter that publishes them; then the relay takes them. */
export const CLICK_EVENTS_LEASE_SECONDS = 60;

/**
 * Counts the stored clicks (ClicksRepository.countStored: run counter, contact tag, Event, outbox
 * event `automation.link_clicked`) in rounds of many clicks per statement: woken after each click
 * statement commits, it counts everything stored so far, again while clicks keep arriving (the
 * clicks stored during a round wait for the next), so under load a round holds the clicks of many
 * redirects. The 302 goes out once the click is stored; reads of this process wait for the
 * clicks it stored to be counted (`settled`, ClicksCountedInterceptor), another replica's reads
 * see them a round later (milliseconds). It publishes the round's events itself
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
  /** Reads waiting for the next round (counted()). */
  private waiting: Array<() => void> = [];
  /** Store statements of this process that committed clicks, and how many of them ended rounds have counted. */
  private stored = 0;
  private countedUpTo = 0;
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
    for (const resolve of this.waiting.splice(0)) resolve();
    await Promise.all(this.publishing);
  }

  /**
   * Counts within `delayMs` (CLICK_COUNT_DELAY_MS unless a read waits: at once), coalesced with a
   * round already due sooner, or running (which then goes again).
   */
  wake(delayMs = CLICK_COUNT_DELAY_MS): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.due) {
      if (delayMs > 0) return;
      clearTimeout(this.due);
    }
    this.due = setTimeout(() => {
      this.due = undefined;
      if (!this.running && !this.stopped) this.running = this.loop().finally(() => (this.running = undefined));
    }, delayMs);
    this.due.unref?.(); // shutdown counts what is left itself
  }

  /** A store statement of this process committed clicks (ClickWriter): they are counted soon. */
  noteStored(): void {
    this.stored += 1;
    this.wake();
  }

  /** Clicks this process stored that no ended round has counted yet. */
  get pending(): boolean {
    return this.countedUpTo < this.stored;
  }

  /**
   * Resolves once the clicks this process has stored so far are counted (at once when none is
   * waiting): what a read waits for, so that whoever saw their redirect answered then reads the click
   * in the run, the contact, the events and the stats (ClicksCountedInterceptor).
   */
  settled(): Promise<void> {
    return this.pending ? this.counted() : Promise.resolve();
  }

  /**
   * Resolves once a counting round that began after this call has ended: a click stored before it
   * is then counted. Never rejects: a round that failed leaves its clicks to the next one, or to the poll.
   */
  counted(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      this.wake(0);
    });
  }

  /** Counts every click stored and not yet counted, and publishes their events (tests; a round already running finishes first). */
  async countNow(): Promise<void> {
    await this.running;
    await this.countAll();
    await Promise.all(this.publishing);
  }

  private async loop(): Promise<void> {
    const waiters = this.waiting.splice(0);
    const upTo = this.stored;
    try {
      await this.countAll();
      this.countedUpTo = Math.max(this.countedUpTo, upTo);
    } catch (err) {
      this.logger.warn(`click counting: ${(err as Error).message}`);
    } finally {
      for (const resolve of waiters) resolve();
    }
    // Clicks stored meanwhile (and reads waiting for them): the next round, with those that follow.
    if (this.again || this.waiting.length > 0) {
      this.again = false;
      setImmediate(() => this.wake(this.waiting.length > 0 ? 0 : CLICK_COUNT_DELAY_MS));
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
