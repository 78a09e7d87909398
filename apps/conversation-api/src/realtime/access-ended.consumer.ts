import { Injectable } from '@nestjs/common';
import { EventConsumer, OnEvent, type EventEnvelope } from '@platform/messaging';
import { ConversationAccessEnded, type ConversationAccessEndedData } from '../sessions/session-events';
import { AgentsGateway } from './agents.gateway';

/**
 * Disconnects the sockets of a revoked session, a deactivated or re-roled user, or a changed role.
 * One replica takes each event; the gateway's `disconnectSockets` reaches every replica through the
 * Socket.IO Redis adapter. Disconnecting twice does no harm, so no inbox mark is kept.
 */
@Injectable()
@EventConsumer('conversation-api.sockets', { inbox: false })
export class AccessEndedConsumer {
  constructor(private readonly gateway: AgentsGateway) {}

  @OnEvent(ConversationAccessEnded)
  async accessEnded(event: EventEnvelope<ConversationAccessEndedData>): Promise<void> {
    this.gateway.endAccess(event.data.scope, event.data.id, event.data.reason);
  }
}
