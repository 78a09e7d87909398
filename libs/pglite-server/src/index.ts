export {
  DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT_MS,
  SessionQueue,
  endsUnit,
  serveSession,
  type ServeSessionOptions,
  type SessionQueueOptions,
  type SessionServer,
} from './session-server';
