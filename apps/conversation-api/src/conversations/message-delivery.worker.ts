import { Injectable, Logger } from '@nestjs/common';
import { PollingWorker } from '@platform/database';
import { MessageDelivery } from './message-delivery';

/**
 * The delivery worker: sends queued agent replies (woken when one is queued, else every second for
 * retries that came due). Replicas share the queue through `FOR UPDATE SKIP LOCKED` and a lease.
 */
@Injectable()
export class MessageDeliveryWorker extends PollingWorker {
  protected readonly logger = new Logger(MessageDeliveryWorker.name);

  constructor(private readonly delivery: MessageDelivery) {
    super(1_000);
  }

  protected tick(): Promise<number> {
    return this.delivery.deliverDue();
  }
}
