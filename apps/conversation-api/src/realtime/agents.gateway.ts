import { Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { WebSocketGateway, WebSocketServer, type OnGatewayConnection } from '@nestjs/websockets';
import type { Namespace, Socket } from 'socket.io';
import { AuthService } from '../auth/auth.service';
import { hasPermission } from '../roles/permissions';
import { RealtimeEvents, type RealtimeEvent } from './realtime-events';

export const REALTIME_NAMESPACE = '/conversations';

/** The room of an account's agents. */
export const accountRoom = (accountId: string) => `account:${accountId}`;

function tokenOf(socket: Socket): string | undefined {
  const auth = socket.handshake.auth as { token?: unknown } | undefined;
  if (typeof auth?.token === 'string') return auth.token.replace(/^Bearer\s+/i, '');
  const header = socket.handshake.headers.authorization;
  return typeof header === 'string' && /^Bearer\s+/i.test(header) ? header.replace(/^Bearer\s+/i, '') : undefined;
}

/**
 * Socket.IO namespace `/conversations`: an agent connects with its access token
 * (`io(url + '/conversations', { auth: { token } })`, or `Authorization: Bearer`), and receives its
 * account's events — `message.created`, `message.updated`, `conversation.created`,
 * `conversation.status_changed`, `conversation.assigned` — when its role has `conversations:read`.
 * Refused connections get `unauthorized` and are closed. Broadcasts go through the Redis adapter of
 * @platform/realtime, so an event raised on one replica reaches the agents connected to any.
 */
@WebSocketGateway({ namespace: REALTIME_NAMESPACE, cors: { origin: true } })
export class AgentsGateway implements OnGatewayConnection, OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(AgentsGateway.name);
  private unsubscribe?: () => void;

  @WebSocketServer() server!: Namespace;

  constructor(
    private readonly auth: AuthService,
    private readonly events: RealtimeEvents,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.events.subscribe((e) => this.broadcast(e));
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  async handleConnection(socket: Socket): Promise<void> {
    const token = tokenOf(socket);
    const principal = token ? await this.auth.authenticate(token).catch(() => null) : null;
    if (!principal || !hasPermission(principal.permissions, 'conversations:read')) {
      socket.emit('unauthorized', { code: principal ? 'FORBIDDEN' : 'UNAUTHORIZED', message: principal ? 'This role cannot read conversations' : 'A valid access token is required' });
      socket.disconnect(true);
      return;
    }
    await socket.join(accountRoom(principal.accountId));
    socket.emit('ready', { account_id: principal.accountId, user_id: principal.userId });
  }

  private broadcast(e: RealtimeEvent): void {
    if (!this.server) return;
    try {
      this.server.to(accountRoom(e.accountId)).emit(e.event, e.payload);
    } catch (err) {
      this.logger.warn(`broadcast of ${e.event} failed: ${(err as Error).message}`);
    }
  }
}
