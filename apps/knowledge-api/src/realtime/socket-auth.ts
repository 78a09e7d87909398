import type { Namespace, Socket } from 'socket.io';
import { keyAccepted, keyFromHeaders } from '../common/api-key';

/** Refuses a socket without the API key when KNOWLEDGE_API_KEY is set (handshake `auth.apiKey`, or the HTTP headers). */
export function requireApiKey(ns: Namespace, expected: string | undefined): void {
  if (!expected) return;
  ns.use((socket: Socket, next) => {
    const auth = socket.handshake.auth as { apiKey?: unknown } | undefined;
    const given = typeof auth?.apiKey === 'string' ? auth.apiKey : keyFromHeaders(socket.handshake.headers);
    if (keyAccepted(expected, given)) next();
    else next(new Error('A valid API key is required (handshake auth.apiKey, X-API-Key or Authorization: Bearer)'));
  });
}

/** `progress_id` from `{progress_id}`, `{progressId}` or a bare string; null when it is not a UUID. */
export function progressIdOf(body: unknown): string | null {
  const raw =
    typeof body === 'string'
      ? body
      : body && typeof body === 'object'
        ? ((body as { progress_id?: unknown; progressId?: unknown }).progress_id ?? (body as { progressId?: unknown }).progressId)
        : undefined;
  return typeof raw === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(raw) ? raw.toLowerCase() : null;
}
