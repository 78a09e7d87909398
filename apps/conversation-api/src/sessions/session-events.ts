import { defineEvent } from '@platform/messaging';

/** Why the sockets of a session, a user or a role's holders must go. */
export type SocketsEndedReason = 'logout' | 'refresh_reuse' | 'deactivated' | 'password_reset' | 'role_changed' | 'user_inactive' | 'channels_changed';

export interface ConversationAccessEndedData {
  /** `session`: one session (refresh-token family); `user`: every session of a user; `role`: every holder of a role. */
  scope: 'session' | 'user' | 'role';
  id: string;
  reason: SocketsEndedReason;
}

/**
 * Raised (through the outbox, in the transaction that revokes or changes the access) when what a
 * socket was authenticated with no longer holds: this service's counterpart of `auth.session_revoked`.
 * The realtime feature consumes it and disconnects the matching sockets on every replica.
 */
export const ConversationAccessEnded = defineEvent<ConversationAccessEndedData>('conversation.access_ended');
