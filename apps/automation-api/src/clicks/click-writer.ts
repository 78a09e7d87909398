import { Injectable } from '@nestjs/common';
import { ClicksRepository, type ClickEnvelope, type CountedClick } from './clicks.repository';

/** Click statements in flight at once; clicks arriving meanwhile wait and go together. */
export const CLICK_WRITES_IN_FLIGHT = 2;
/** Clicks in one statement at most. */
export const CLICK_WRITE_MAX = 200;

export interface NewClick {
  token: string;
  at: Date;
  ip: string | null;
  userAgent: string | null;
  envelope: ClickEnvelope;
}

interface Pending {
  click: NewClick;
  resolve: (counted: CountedClick | null) => void;
  reject: (err: unknown) => void;
}

/**
 * Stores and counts the clicks of the redirect, grouping concurrent clicks into one statement (a
 * group commit): while CLICK_WRITES_IN_FLIGHT statements are running, the clicks that arrive queue
 * up and are written together by the next one (ClicksRepository.clickBatch). Each click is answered
 * only after the statement holding it committed, so a 302 still means counted; under light load a
 * click is written at once, alone. A statement that fails is retried click by click, so that one
 * click's problem is its own error and not its neighbours'.
 */
@Injectable()
export class ClickWriter {
  private queue: Pending[] = [];
  private inFlight = 0;

  constructor(private readonly repo: ClicksRepository) {}

  /** Resolves, once committed, with the link's target (null when the token is no link: nothing written). */
  click(click: NewClick): Promise<CountedClick | null> {
    return new Promise((resolve, reject) => {
      this.queue.push({ click, resolve, reject });
      this.flush();
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
      const counted = batch.length === 1 ? [await this.one(batch[0].click)] : await this.repo.clickBatch(batch.map((p) => p.click));
      batch.forEach((p, i) => p.resolve(counted[i]));
    } catch (err) {
      if (batch.length === 1) return batch[0].reject(err);
      await Promise.all(batch.map((p) => this.one(p.click).then(p.resolve, p.reject)));
    }
  }

  private one(c: NewClick): Promise<CountedClick | null> {
    return this.repo.clickByToken(c.token, c.at, c.ip, c.userAgent, c.envelope);
  }
}
