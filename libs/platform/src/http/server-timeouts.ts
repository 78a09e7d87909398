import type { Server } from 'node:http';

/** How long a client may take: headers, the whole request, the idle time between two requests of a connection. */
export interface ServerTimeouts {
  /** The request line and headers must arrive within this (slowloris); answered 408 and closed. */
  headersTimeoutMs: number;
  /** The whole request (headers and body) must arrive within this; 0 = no limit (a proxy streaming large uploads). */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** How often Node checks the two timeouts above (its default, 30 s, would let a header timeout run that much late). */
  checkIntervalMs: number;
}

export const DEFAULT_SERVER_TIMEOUTS: Readonly<ServerTimeouts> = Object.freeze({
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 300_000,
  keepAliveTimeoutMs: 5_000,
  checkIntervalMs: 1_000,
});

/** The timeouts of the config's HTTP_* variables (BaseConfig), the defaults where unset. */
export function serverTimeoutsOf(config: {
  HTTP_HEADERS_TIMEOUT_MS?: number;
  HTTP_REQUEST_TIMEOUT_MS?: number;
  HTTP_KEEP_ALIVE_TIMEOUT_MS?: number;
  HTTP_TIMEOUT_CHECK_INTERVAL_MS?: number;
}): ServerTimeouts {
  return {
    headersTimeoutMs: config.HTTP_HEADERS_TIMEOUT_MS ?? DEFAULT_SERVER_TIMEOUTS.headersTimeoutMs,
    requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS ?? DEFAULT_SERVER_TIMEOUTS.requestTimeoutMs,
    keepAliveTimeoutMs: config.HTTP_KEEP_ALIVE_TIMEOUT_MS ?? DEFAULT_SERVER_TIMEOUTS.keepAliveTimeoutMs,
    checkIntervalMs: config.HTTP_TIMEOUT_CHECK_INTERVAL_MS ?? DEFAULT_SERVER_TIMEOUTS.checkIntervalMs,
  };
}

/**
 * Applies the timeouts to a `node:http` server before it listens (the check interval is read when it
 * starts listening): every HTTP server of the platform, Nest's and the raw listeners, goes through
 * this, so a client that sends its headers byte by byte, or a body that never ends, is cut off
 * instead of holding a connection for ever. A request timeout below the headers timeout is raised
 * to it (Node requires headersTimeout ≤ requestTimeout).
 */
export function applyServerTimeouts(server: Server, timeouts: Partial<ServerTimeouts> = {}): Server {
  const t = { ...DEFAULT_SERVER_TIMEOUTS, ...timeouts };
  server.headersTimeout = t.headersTimeoutMs;
  server.requestTimeout = t.requestTimeoutMs === 0 ? 0 : Math.max(t.requestTimeoutMs, t.headersTimeoutMs);
  server.keepAliveTimeout = t.keepAliveTimeoutMs;
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = t.checkIntervalMs;
  return server;
}
