import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ProxyEngine } from './proxy-engine';

type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

export interface ServerRoutes {
  /** Every request: proxy it with the engine, answer it, or hand it to `next` (the server's own handler: Express). */
  request(req: IncomingMessage, res: ServerResponse, next: RequestHandler): void;
  /** Every upgrade (WebSocket): the server has no other handler for these. */
  upgrade(req: IncomingMessage, socket: Socket, head: Buffer): void;
}

export interface TakeOverOptions {
  /** who is installing (in the error when the server does not have exactly one request handler) */
  name: string;
  /** at shutdown, how long proxied requests in flight may finish before the connections are cut */
  drainTimeoutMs: number;
  /** called when requests are still in flight after `drainTimeoutMs` (they are then cut) */
  onCut?: (active: number) => void;
}

/**
 * Puts a proxy in front of an HTTP server's own handler (Express, under Nest), on the server's
 * `request` and `upgrade` events: a proxied request never goes through Express routing or its
 * per-request logger, which keeps the overhead small.
 *
 * Graceful shutdown (the platform's: close, drain, closeAllConnections) only sees requests that
 * went through the server's handler, and upgraded sockets (open WebSockets) are no longer managed
 * by the HTTP server at all. So: the tunnels are cut when the server closes, and proxied requests
 * in flight may finish (up to `drainTimeoutMs`) before the remaining connections are cut.
 *
 * Both listeners run under the engine's last resort (`engine.faults`): an exception thrown while
 * routing a request is answered 500 (or its connection closed), counted and reported, never left to
 * end the process.
 */
export function takeOverServer(server: Server, engine: ProxyEngine, routes: ServerRoutes, opts: TakeOverOptions): void {
  const handlers = server.listeners('request') as RequestHandler[];
  if (handlers.length !== 1) throw new Error(`${opts.name}: expected one request handler (Express) on the server, found ${handlers.length}`);
  const [next] = handlers;
  server.removeAllListeners('request');
  // Nothing a request sends may end the process: the engine's last resort answers 500 (or closes the
  // connection), counts and reports whatever these listeners throw.
  server.on('request', engine.faults.request((req: IncomingMessage, res: ServerResponse) => routes.request(req, res, next)));
  // Uploads of hundreds of MB may take longer than Node's default 5-minute request timeout; stalled
  // exchanges are still ended by the engine's timeout and the server's headersTimeout.
  server.requestTimeout = 0;

  const close = server.close.bind(server);
  server.close = ((callback?: (err?: Error) => void) => {
    engine.closeTunnels();
    return close(callback);
  }) as Server['close'];
  const closeAll = server.closeAllConnections.bind(server);
  server.closeAllConnections = () => {
    void engine.idle(opts.drainTimeoutMs).then((drained) => {
      if (!drained) opts.onCut?.(engine.activeRequests);
      closeAll();
    });
  };
  server.on('upgrade', engine.faults.upgrade((req, socket, head) => routes.upgrade(req, socket as Socket, head)));
}
