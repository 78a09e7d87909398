import { Injectable, Logger } from '@nestjs/common';
import { PollingWorker } from '@platform/database';
import { ConversationsRepository } from './conversations.repository';

/** Opens snoozed conversations whose `snoozed_until` has come (one replica per row: db.claimDue). */
@Injectable()
export class SnoozeWorker extends PollingWorker {
  protected readonly logger = new Logger(SnoozeWorker.name);

  constructor(private readonly conversations: ConversationsRepository) {
    super(30_000);
  }

  protected tick(): Promise<number> {
    return this.conversations.wakeSnoozed(100);
  }
}
