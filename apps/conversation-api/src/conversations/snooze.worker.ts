import { Injectable, Logger } from '@nestjs/common';
import { PollingWorker } from '@platform/database';
import { RealtimeEvents } from '../realtime/realtime-events';
import { ConversationsRepository } from './conversations.repository';
import { conversationView } from './dto/conversation.dto';

/**
 * Opens snoozed conversations whose `snoozed_until` has come (one replica per row: db.claimDue) and
 * tells their agents (`conversation.status_changed`).
 */
@Injectable()
export class SnoozeWorker extends PollingWorker {
  protected readonly logger = new Logger(SnoozeWorker.name);

  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly realtime: RealtimeEvents,
  ) {
    super(30_000);
  }

  protected async tick(): Promise<number> {
    const woken = await this.conversations.wakeSnoozed(100);
    for (const { id, accountId } of woken) {
      const conversation = await this.conversations.find(accountId, id);
      if (conversation) this.realtime.emit(conversation, 'conversation.status_changed', conversationView(conversation));
    }
    return woken.length;
  }
}
