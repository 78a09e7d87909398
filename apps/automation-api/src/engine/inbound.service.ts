import { Inject, Injectable } from '@nestjs/common';
import { AutomationConfig } from '../config';
import type { NewInbound, UnreadableDelivery } from './inbound';
import { InboundRepository } from './inbound.repository';

/**
 * The engine's work queue as other features and the engine's use cases see it: the webhook
 * receiver stores items and keeps unreadable deliveries, a send renews its item's lease.
 */
@Injectable()
export class InboundService {
  constructor(
    private readonly inbound: InboundRepository,
    @Inject(AutomationConfig) private readonly config: AutomationConfig,
  ) {}

  /** Stores work items (duplicates ignored); answers the dedup keys of the new ones. Joins an open transaction. */
  insert(items: NewInbound[]): Promise<string[]> {
    return this.inbound.insert(items);
  }

  /** Which of these dedup keys are stored already (a webhook or the comment poller saw the platform id). */
  existingKeys(keys: string[]): Promise<Set<string>> {
    return this.inbound.existingDedupKeys(keys);
  }

  /** Stores items as processed (nothing to do for them; the reason in their payload); answers the dedup keys that were new. */
  keepProcessed(items: NewInbound[]): Promise<string[]> {
    return this.inbound.keepProcessed(items);
  }

  /** The account's work queue now (GET /status `queue`). */
  depth(accountId: number, now: Date): Promise<{ due: number; scheduled: number; deferred: number; oldest_due_at: Date | null }> {
    return this.inbound.depth(accountId, now);
  }

  /** Keeps a signed delivery the receiver could not read, for inspection (never processed). */
  keepUnreadable(delivery: UnreadableDelivery): Promise<void> {
    return this.inbound.keepUnreadable(delivery);
  }

  /** The item's input is stored (run created or found): a retry goes straight to processing. */
  markApplied(id: string, runId: string | null): Promise<void> {
    return this.inbound.markApplied(id, runId);
  }

  /** Extends the item's lease by AUTOMATION_LEASE_SECONDS (before a platform call that may take a while). */
  renewLease(id: string): Promise<void> {
    return this.inbound.renewLease(id, this.config.AUTOMATION_LEASE_SECONDS);
  }
}
