import { Injectable } from '@nestjs/common';
import type { NewInbound } from '../engine/inbound';
import { InboundService } from '../engine/inbound.service';

/** Insert statements of the receiver in flight at once; deliveries arriving meanwhile wait and go together. */
export const INBOUND_WRITES_IN_FLIGHT = 2;
/** Items in one statement at most (a single delivery's items always go together). */
export const INBOUND_WRITE_MAX_ITEMS = 500;

interface Pending {
  items: NewInbound[];
  resolve: (stored: number) => void;
  reject: (err: unknown) => void;
}

/**
 * Stores the work items of webhook deliveries durably, grouping concurrent deliveries into one
 * statement (a group commit): while INBOUND_WRITES_IN_FLIGHT inserts are running, deliveries that
 * arrive queue up and are written together by the next one. Each delivery is answered only after
 * the statement holding its items committed, so a 200 still means stored; under light load a
 * delivery is written at once, alone. A statement that fails is retried per delivery, so that one
 * delivery's problem is its own 500 and not its neighbours'.
 */
@Injectable()
export class InboundWriter {
  private queue: Pending[] = [];
  private inFlight = 0;

  constructor(private readonly repo: InboundService) {}

  private flushing = false;

  /** Resolves, once committed, with how many of `items` were new (not stored before, nor by a delivery written together). */
  store(items: NewInbound[]): Promise<number> {
    if (items.length === 0) return Promise.resolve(0);
    return new Promise((resolve, reject) => {
      this.queue.push({ items, resolve, reject });
      // The deliveries read in the same turn of the event loop go together.
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
    while (this.inFlight < INBOUND_WRITES_IN_FLIGHT && this.queue.length > 0) {
      const batch = this.take();
      this.inFlight++;
      void this.write(batch).finally(() => {
        this.inFlight--;
        this.flush();
      });
    }
  }

  /** The oldest waiting deliveries, up to INBOUND_WRITE_MAX_ITEMS items (at least one delivery). */
  private take(): Pending[] {
    let count = this.queue[0].items.length;
    let n = 1;
    while (n < this.queue.length && count + this.queue[n].items.length <= INBOUND_WRITE_MAX_ITEMS) count += this.queue[n++].items.length;
    return this.queue.splice(0, n);
  }

  private async write(batch: Pending[]): Promise<void> {
    try {
      settle(batch, await this.repo.insert(batch.flatMap((p) => p.items)));
    } catch (err) {
      if (batch.length === 1) {
        batch[0].reject(err);
        return;
      }
      await Promise.all(batch.map((p) => this.repo.insert(p.items).then((keys) => settle([p], keys), p.reject)));
    }
  }
}

/** Answers each delivery with its new items; a key stored once counts for the first delivery holding it. */
function settle(batch: Pending[], storedKeys: string[]): void {
  const fresh = new Set(storedKeys);
  for (const p of batch) {
    let stored = 0;
    for (const it of p.items) if (fresh.delete(it.dedup_key)) stored++;
    p.resolve(stored);
  }
}
