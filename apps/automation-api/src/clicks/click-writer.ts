import { Injectable } from '@nestjs/common';
import { ClickCounter } from './click-counter';
import { ClicksRepository, type NewClick } from './clicks.repository';

export type { NewClick } from './clicks.repository';

/** Click statements in flight at once; clicks arriving meanwhile wait and go together. */
export const CLICK_WRITES_IN_FLIGHT = 2;
/** Clicks in one statement at most. */
export const CLICK_WRITE_MAX = 200;

interface Pending {
  click: NewClick;
  resolve: (url: string | null) => void;
  reject: (err: unknown) => void;
}

/**
 * Stores the clicks of the redirect, grouping concurrent clicks into one statement (a group
 * commit): while CLICK_WRITES_IN_FLIGHT statements are running, the clicks that arrive queue up and
 * are written together by the next one (ClicksRepository.store). Each click is answered only after
 * the statement holding it committed, so a 302 means stored, never lost; the counter is woken to
 * count them (ClickCounter). Under light load a click is written at once, alone. A statement that
 * fails is retried click by click, so that one click's problem is its own error and not its
 * neighbours'.
 */
@Injectable()
export class ClickWriter {
  private queue: Pending[] = [];
  private inFlight = 0;

  constructor(
    private readonly repo: ClicksRepository,
    private readonly counter: ClickCounter,
  ) {}

  private flushing = false;

  /** Resolves, once committed, with the link's target (null when the token is no link: nothing written). */
  click(click: NewClick): Promise<string | null> {
    return new Promise((resolve, reject) => {
      this.queue.push({ click, resolve, reject });
      // The requests read in the same turn of the event loop go together.
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => {
          this.flushing = false;
          this.flush();
        });
      }
    });
  }

  private flush(): void {
    while (this.inFlight < CLICK_WRITES_IN_FLIGHT && this.queue.length > 0) {
      const batch = this.queue.splice(0, CLICK_WRITE_MAX);
      this.inFlight++;
      void this.write(batch).finally(() => {
        this.inFlight--;
        this.flush();
      });
    }
  }

  private async write(batch: Pending[]): Promise<void> {
    try {
      this.settle(batch, await this.repo.store(batch.map((p) => p.click)));
    } catch (err) {
      if (batch.length === 1) return batch[0].reject(err);
      await Promise.all(batch.map((p) => this.repo.store([p.click]).then((urls) => this.settle([p], urls), p.reject)));
    }
  }

  private settle(batch: Pending[], urls: Array<string | null>): void {
    if (urls.some((url) => url !== null)) this.counter.noteStored();
    batch.forEach((p, i) => p.resolve(urls[i]));
  }
}
