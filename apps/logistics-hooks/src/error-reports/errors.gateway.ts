import { Logger } from '@nestjs/common';
import { WebSocketGateway, WebSocketServer, type OnGatewayInit } from '@nestjs/websockets';
import type { Namespace, Socket } from 'socket.io';
import { AdminTokenVerifier } from '../access/admin-token.verifier';
import type { ErrorRecord } from './error-reports.service';

/**
 * Socket.IO namespace `/errors` (default path `/socket.io`) for the error dashboards. The handshake
 * carries auth-api's logistics access token in `auth.token` (`io('/errors', { auth: { token } })`):
 * no or invalid token → connect_error `unauthorized`; a role other than admin → `forbidden`.
 * Server events: `error_created` (a new record) and `error_updated` (a repeat; occurrences grew), each
 * carrying the record. With REDIS_URL the adapter reaches the clients of every replica.
 */
@WebSocketGateway({ namespace: '/errors' })
export class ErrorsGateway implements OnGatewayInit {
  private readonly logger = new Logger(ErrorsGateway.name);

  @WebSocketServer()
  server!: Namespace;

  constructor(private readonly tokens: AdminTokenVerifier) {}

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
  }

  /** Sends the record to every connected dashboard (of every replica, through the adapter). */
  broadcast(event: 'error_created' | 'error_updated', record: ErrorRecord): void {
    this.server.emit(event, record);
    this.logger.debug(`${event} ${record.id} sent`);
  }
}
