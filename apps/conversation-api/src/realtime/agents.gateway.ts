import { Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { WebSocketGateway, WebSocketServer, type OnGatewayConnection, type OnGatewayDisconnect } from '@nestjs/websockets';
import type { Namespace, Socket } from 'socket.io';
import { AuthService } from '../auth/auth.service';
import { ChannelsService } from '../channels/channels.service';
import { hasPermission } from '../access/permissions';
import { RealtimeEvents, type RealtimeEvent } from './realtime-events';

export const REALTIME_NAMESPACE = '/conversations';

/** The room of an account's administrators (they see every channel). */
export const administratorsRoom = (accountId: string) => `administrators:${accountId}`;
/** The room of a channel's members (agents see the conversations of their inboxes only). */
export const channelRoom = (channelId: string) => `channel:${channelId}`;
/** The rooms a socket is in by what authenticated it, so that a revocation reaches exactly those sockets. */
export const accessRoom = (scope: 'session' | 'user' | 'role', id: string) => `${scope}:${id}`;

function tokenOf(socket: Socket): string | undefined {
  const auth = socket.handshake.auth as { token?: unknown } | undefined;
  if (typeof auth?.token === 'string') return auth.token.replace(/^Bearer\s+/i, '');
  const header = socket.handshake.headers.authorization;
  return typeof header === 'string' && /^Bearer\s+/i.test(header) ? header.replace(/^Bearer\s+/i, '') : undefined;
}

/**
 * Socket.IO namespace `/conversations`: an agent connects with its access token
 * (`io(url + '/conversations', { auth: { token } })`, or `Authorization: Bearer`), and receives its
 * events — `message.created`, `message.updated`, `conversation.created`,
 * `conversation.status_changed`, `conversation.assigned` — when its role has `conversations:read`:
 * administrators those of every channel of the account, other users those of the channels they are
 * members of (the same scope as GET /api/v1/conversations).
 * Refused connections get `unauthorized` and are closed. Broadcasts go through the Redis adapter of
 * @platform/realtime, so an event raised on one replica reaches the agents connected to any.
 *
 * A socket lives no longer than what authenticated it: it is closed (after `unauthorized` with code
 * `SESSION_ENDED` and the reason) when its session is revoked (logout, refresh-token reuse, password
 * reset), its user deactivated or given another role, or its role's permissions changed
 * (`conversation.access_ended`, on every replica through the adapter), and at its token's expiry
 * (code `TOKEN_EXPIRED`): the client reconnects with a fresh token.
 */
@WebSocketGateway({ namespace: REALTIME_NAMESPACE, cors: { origin: true } })
export class AgentsGateway implements OnGatewayConnection, OnGatewayDisconnect, OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(AgentsGateway.name);
  private unsubscribe?: () => void;
  private readonly expiries = new Map<string, NodeJS.Timeout>();

  @WebSocketServer() server!: Namespace;

  constructor(
    private readonly auth: AuthService,
    private readonly channels: ChannelsService,
    private readonly events: RealtimeEvents,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.events.subscribe((e) => this.broadcast(e));
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
    for (const timer of this.expiries.values()) clearTimeout(timer);
    this.expiries.clear();
  }

  handleDisconnect(socket: Socket): void {
    const timer = this.expiries.get(socket.id);
    if (timer) clearTimeout(timer);
    this.expiries.delete(socket.id);
  }

  /** Closes every socket (on every replica) authenticated with the session, by the user, or holding the role. */
  endAccess(scope: 'session' | 'user' | 'role', id: string, reason: string): void {
    if (!this.server) return;
    const room = accessRoom(scope, id);
    this.server.to(room).emit('unauthorized', { code: 'SESSION_ENDED', message: 'The access this connection was opened with has ended', reason });
    this.server.in(room).disconnectSockets(true);
  }

  async handleConnection(socket: Socket): Promise<void> {
    const token = tokenOf(socket);
    const principal = token ? await this.auth.authenticate(token).catch(() => null) : null;
    if (!principal || !hasPermission(principal.permissions, 'conversations:read')) {
      socket.emit('unauthorized', { code: principal ? 'FORBIDDEN' : 'UNAUTHORIZED', message: principal ? 'This role cannot read conversations' : 'A valid access token is required' });
      socket.disconnect(true);
      return;
    }
    if (socket.disconnected) return;
    const scope = await this.channels.visibleChannelIds(principal);
    const audience = scope ? scope.map(channelRoom) : [administratorsRoom(principal.accountId)];
    await socket.join([...audience, accessRoom('session', principal.sessionId), accessRoom('user', principal.userId), accessRoom('role', principal.roleId)]);
    const timer = setTimeout(() => {
      this.expiries.delete(socket.id);
      socket.emit('unauthorized', { code: 'TOKEN_EXPIRED', message: 'The access token expired; reconnect with a fresh one' });
      socket.disconnect(true);
    }, Math.max(0, principal.expiresAt * 1000 - Date.now()));
    timer.unref();
    this.expiries.set(socket.id, timer);
    // A revocation committed between the check above and the joins would have missed this socket: check once more.
    if (!(token && (await this.auth.authenticate(token).catch(() => null)))) {
      socket.emit('unauthorized', { code: 'SESSION_ENDED', message: 'The access this connection was opened with has ended' });
      socket.disconnect(true);
      return;
    }
    socket.emit('ready', { account_id: principal.accountId, user_id: principal.userId });
  }

  private broadcast(e: RealtimeEvent): void {
    if (!this.server) return;
    try {
      this.server.to([administratorsRoom(e.accountId), channelRoom(e.channelId)]).emit(e.event, e.payload);
    } catch (err) {
      this.logger.warn(`broadcast of ${e.event} failed: ${(err as Error).message}`);
    }
  }
}
