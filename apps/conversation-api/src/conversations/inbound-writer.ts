import { Injectable } from '@nestjs/common';
import { GroupCommit } from '@platform/database';
import { InboundService, type InboundDelivery, type InboundResult } from './inbound.service';

/** Batches being stored at once; deliveries arriving meanwhile wait and go together in the next one. */
export const INBOUND_BATCHES_IN_FLIGHT = 2;
/** Messages in one batch at most (a single delivery's messages always go together). */
export const INBOUND_BATCH_MAX_MESSAGES = 200;

/**
 * Stores the messages of webhook deliveries (`InboundService.storeBatch`), grouping concurrent
 * deliveries into one transaction (GroupCommit of @platform/database): the deliveries read in
 * the same turn of the event loop go together, and while INBOUND_BATCHES_IN_FLIGHT batches are
 * being stored, deliveries that arrive queue up and are stored together by the next one. Each
 * delivery is answered only after the transaction holding its messages committed, so a 200 still
 * means stored; under light load a delivery is stored at once, alone. A delivery that could not be
 * stored is its own error, not its neighbours' (`storeBatch` answers per delivery).
 */
@Injectable()
export class InboundWriter {
  private readonly batches: GroupCommit<InboundDelivery, InboundResult[] | Error>;

  constructor(inbound: InboundService) {
    this.batches = new GroupCommit((deliveries) => inbound.storeBatch(deliveries), {
      inFlight: INBOUND_BATCHES_IN_FLIGHT,
      maxBatch: INBOUND_BATCH_MAX_MESSAGES,
      weight: (d) => d.messages.length,
      sameTurn: true,
      retryAlone: true,
    });
  }

  /** Resolves, once committed, with what became of each message of the delivery, in order. */
  async store(delivery: InboundDelivery): Promise<InboundResult[]> {
    if (!delivery.messages.length) return [];
    const stored = await this.batches.add(delivery);
    if (stored instanceof Error) throw stored;
    return stored;
  }
}
