import { Injectable, Logger } from '@nestjs/common';

export type RevocationListener = (sessionId: string) => void | Promise<void>;

/**
 * In-process announcements of revoked auth-api sessions: the `auth.session_revoked` consumer calls
 * `revoked(sid)` once the session is stored as revoked, and whoever holds live connections of that
 * session (the `/errors` Socket.IO gateway) ends them. One replica takes each event from the queue; the
 * gateway's listener reaches every replica's sockets through the Socket.IO adapter (Redis).
 */
@Injectable()
export class SessionRevocations {
  private readonly logger = new Logger(SessionRevocations.name);
  private readonly listeners = new Set<RevocationListener>();

  onRevoked(listener: RevocationListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async revoked(sessionId: string): Promise<void> {
    for (const listener of this.listeners) {
      try {
        await listener(sessionId);
      } catch (err) {
        this.logger.warn(`a listener of the revocation of session ${sessionId} failed: ${(err as Error).message}`);
      }
    }
  }
}
