// The contract of `conversation.access_ended` lives in @platform/messaging with the other typed events:
// raised (through the outbox, in the transaction that revokes or changes the access) when what a
// socket was authenticated with no longer holds, this service's counterpart of `auth.session_revoked`;
// the realtime feature consumes it and disconnects the matching sockets on every replica.
export { ConversationAccessEnded, type ConversationAccessEndedData, type ConversationSocketsEndedReason as SocketsEndedReason } from '@platform/messaging';
