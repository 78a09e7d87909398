import { Injectable } from '@nestjs/common';
import { GroupCommit } from '@platform/database';
import type { NewInbound } from '../engine/inbound';
import { InboundService } from '../engine/inbound.service';

/** Insert statements of the receiver in flight at once; deliveries arriving meanwhile wait and go together. */
export const INBOUND_WRITES_IN_FLIGHT = 2;
/** Items in one statement at most (a single delivery's items always go together). */
export const INBOUND_WRITE_MAX_ITEMS = 500;

/**
 * Stores the work items of webhook deliveries durably, grouping concurrent deliveries into one
 * statement (GroupCommit of @platform/database): while INBOUND_WRITES_IN_FLIGHT inserts are running,
 * deliveries that arrive queue up and are written together by the next one, those read in one turn
 * of the event loop always together. Each delivery is answered only after the statement holding its
 * items committed, so a 200 still means stored; under light load a delivery is written at once,
 * alone. A statement that fails is retried per delivery, so that one delivery's problem is its own
 * 500 and not its neighbours'.
 */
@Injectable()
export class InboundWriter {
  private readonly commit: GroupCommit<NewInbound[], number>;

  constructor(repo: InboundService) {
    this.commit = new GroupCommit(async (deliveries) => newPerDelivery(deliveries, await repo.insert(deliveries.flat())), {
      inFlight: INBOUND_WRITES_IN_FLIGHT,
      maxBatch: INBOUND_WRITE_MAX_ITEMS,
      weight: (items) => items.length,
      sameTurn: true,
      retryAlone: true,
    });
  }

  /** Resolves, once committed, with how many of `items` were new (not stored before, nor by a delivery written together). */
  store(items: NewInbound[]): Promise<number> {
    if (items.length === 0) return Promise.resolve(0);
    return this.commit.add(items);
  }
}

/** How many new items each delivery brought; a key stored once counts for the first delivery holding it. */
function newPerDelivery(deliveries: NewInbound[][], storedKeys: string[]): number[] {
  const fresh = new Set(storedKeys);
  return deliveries.map((items) => items.filter((it) => fresh.delete(it.dedup_key)).length);
}
