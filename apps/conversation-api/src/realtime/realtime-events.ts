import { Injectable, Logger } from '@nestjs/common';

/** The events agents receive, each for one account. */
export type RealtimeEventName = 'message.created' | 'message.updated' | 'conversation.created' | 'conversation.status_changed' | 'conversation.assigned' | 'conversation.updated';

/** Who may see an event: the account's administrators and the members of the channel (inbox) it happened in. */
export interface RealtimeAudience {
  accountId: string;
  channelId: string;
}

export interface RealtimeEvent extends RealtimeAudience {
  event: RealtimeEventName;
  payload: unknown;
}

type Listener = (e: RealtimeEvent) => void;

/**
 * Where services announce changes agents should see at once, after their transaction committed.
 * The Socket.IO gateway listens and broadcasts each event to the account's room.
 */
@Injectable()
export class RealtimeEvents {
  private readonly logger = new Logger(RealtimeEvents.name);
  private readonly listeners = new Set<Listener>();

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(audience: RealtimeAudience, event: RealtimeEventName, payload: unknown): void {
    for (const listener of this.listeners) {
      try {
        listener({ accountId: audience.accountId, channelId: audience.channelId, event, payload });
      } catch (err) {
        this.logger.warn(`realtime listener failed on ${event}: ${(err as Error).message}`);
      }
    }
  }
}
