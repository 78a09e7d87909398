import { Injectable } from '@nestjs/common';
import { AuthSessionRevoked, EventConsumer, OnEvent, type AuthSessionRevokedData, type EventEnvelope } from '@platform/messaging';
import { RevokedSessionsRepository } from './revoked-sessions.repository';
import { SessionRevocations } from './session-revocations';

/** Access tokens live at most 1 hour (auth-api, part G); a revoked session is remembered that long after its revocation, plus a margin. */
const KEEP_MS = 60 * 60 * 1000 + 5 * 60 * 1000;

/**
 * `auth.session_revoked` (logout, refresh-token reuse at auth-api): the session's access tokens are
 * refused here from then on instead of until they expire, and its open dashboard sockets are closed.
 */
@Injectable()
@EventConsumer('logistics-hooks.sessions')
export class SessionEventsConsumer {
  constructor(
    private readonly revoked: RevokedSessionsRepository,
    private readonly revocations: SessionRevocations,
  ) {}

  @OnEvent(AuthSessionRevoked)
  async sessionRevoked(event: EventEnvelope<AuthSessionRevokedData>): Promise<void> {
    const revokedAt = new Date(event.data.revokedAt);
    const at = Number.isNaN(revokedAt.getTime()) ? new Date() : revokedAt;
    await this.revoked.add(event.data.sessionId, at, new Date(at.getTime() + KEEP_MS));
    // live connections of the session (dashboard sockets) end now, not at their token's expiry
    await this.revocations.revoked(event.data.sessionId);
  }
}
