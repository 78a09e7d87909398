import { Logger, type OnModuleDestroy } from '@nestjs/common';
import { WebSocketGateway, WebSocketServer, type OnGatewayConnection, type OnGatewayInit } from '@nestjs/websockets';
import type { Namespace, Socket } from 'socket.io';
import type { AdminUser } from '../access/admin-token.verifier';
import { AdminTokenVerifier } from '../access/admin-token.verifier';
import { SessionRevocations } from '../access/session-revocations';
import type { ErrorRecord } from './error-reports.service';
import { UpdateCoalescer } from './update-coalescer';

/** `error_updated` of one record goes out at most once per this many ms (the latest state at the end of the window). */
export const UPDATE_COALESCE_MS = 1000;
/** setTimeout's ceiling (~24.8 days); tokens live an hour, this only guards the arithmetic. */
const MAX_TIMER_MS = 2_147_483_647;

const sessionRoom = (sessionId: string) => `session:${sessionId}`;

/**
 * Socket.IO namespace `/errors` (default path `/socket.io`) for the error dashboards. The handshake
 * carries auth-api's logistics access token in `auth.token` (`io('/errors', { auth: { token } })`):
 * no or invalid token → connect_error `unauthorized`; a role other than admin → `forbidden`.
 * Server events: `error_created` (a new record) and `error_updated` (a repeat or a state change),
 * each carrying the record; `error_updated` of one record at most once per second (a burst of repeats:
 * the first at once, the latest state when the second ends; per replica). With REDIS_URL the adapter
 * reaches the clients of every replica.
 *
 * The token is checked at the handshake and its life is kept: the socket is disconnected when the
 * token expires (`session_ended` `{reason: 'expired'}` first) and when auth-api revokes its session
 * (`auth.session_revoked`: `session_ended` `{reason: 'revoked'}`, on every replica through the adapter,
 * since each socket joins the room of its session).
 */
@WebSocketGateway({ namespace: '/errors' })
export class ErrorsGateway implements OnGatewayInit, OnGatewayConnection, OnModuleDestroy {
  private readonly logger = new Logger(ErrorsGateway.name);
  private readonly updates = new UpdateCoalescer<ErrorRecord>(UPDATE_COALESCE_MS, (_id, record) => this.emit('error_updated', record));
  private stopListening: (() => void) | null = null;

  @WebSocketServer()
  server!: Namespace;

  constructor(
    private readonly tokens: AdminTokenVerifier,
    private readonly revocations: SessionRevocations,
  ) {}

  afterInit(namespace: Namespace): void {
    namespace.use((socket: Socket, next: (err?: Error) => void) => {
      const raw: unknown = socket.handshake.auth?.token;
      const token = typeof raw === 'string' ? raw.replace(/^Bearer\s+/i, '') : '';
      if (!token) return next(new Error('unauthorized'));
      this.tokens.verify(token).then(
        (user) => {
          if (!user) return next(new Error('unauthorized'));
          if (user.role !== 'admin') return next(new Error('forbidden'));
          socket.data.user = user;
          next();
        },
        () => next(new Error('unauthorized')),
      );
    });
    this.stopListening = this.revocations.onRevoked(async (sessionId) => {
      const room = namespace.in(sessionRoom(sessionId));
      room.emit('session_ended', { reason: 'revoked' });
      room.disconnectSockets(true);
      this.logger.debug(`sockets of revoked session ${sessionId} disconnected`);
    });
  }

  handleConnection(socket: Socket): void {
    const user = socket.data.user as AdminUser | undefined;
    if (!user) return;
    if (user.sessionId) void socket.join(sessionRoom(user.sessionId));
    const timer = setTimeout(() => {
      socket.emit('session_ended', { reason: 'expired' });
      socket.disconnect(true);
    }, Math.min(MAX_TIMER_MS, Math.max(0, user.expiresAt - Date.now())));
    timer.unref?.();
    socket.once('disconnect', () => clearTimeout(timer));
  }

  onModuleDestroy(): void {
    this.stopListening?.();
    this.updates.clear();
  }

  /** Sends the record to every connected dashboard (of every replica, through the adapter); updates coalesced per record. */
  broadcast(event: 'error_created' | 'error_updated', record: ErrorRecord): void {
    if (event === 'error_updated') this.updates.push(record.id, record);
    else this.emit(event, record);
  }

  private emit(event: 'error_created' | 'error_updated', record: ErrorRecord): void {
    this.server.emit(event, record);
    this.logger.debug(`${event} ${record.id} sent`);
  }
}
