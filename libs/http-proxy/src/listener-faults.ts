import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { Counter, type Registry } from 'prom-client';

/** Where a raw listener failed: the server's `request` or `upgrade` handler, or an engine callback of a proxied exchange. */
export type FaultSite = 'request' | 'upgrade' | 'proxy';

export interface ListenerFaultsOptions {
  /** where the faults are counted (`http_listener_faults_total{site}`); none: counted in `count` only */
  registry?: Registry;
  /** told of every fault (the app logs it with its stack) */
  onFault?: (site: FaultSite, error: unknown) => void;
}

export const LISTENER_FAULTS_METRIC = 'http_listener_faults_total';

const FAULT_BODY = JSON.stringify({
  statusCode: 500,
  error: 'Internal Server Error',
  message: 'The server failed while handling this request; it was logged',
});

/**
 * The last resort of the platform's raw `node:http` listeners (the take-over server's `request` and
 * `upgrade` handlers, the proxy engine's callbacks). Nest's exception filters never see these: an
 * exception thrown there would reach the event loop and end the process, and with it every service
 * sharing it. Whatever a request makes them throw is caught here: the request is answered 500 when
 * nothing was sent yet, else its connection is closed; the fault is counted and reported, and the
 * process goes on serving.
 */
export class ListenerFaults {
  private readonly counter?: Counter<'site'>;
  private faults = 0;

  constructor(private readonly options: ListenerFaultsOptions = {}) {
    const { registry } = options;
    if (registry) {
      this.counter =
        (registry.getSingleMetric(LISTENER_FAULTS_METRIC) as Counter<'site'> | undefined) ??
        new Counter({
          name: LISTENER_FAULTS_METRIC,
          help: 'Exceptions caught by the last resort of a raw HTTP listener (request, upgrade, proxy callback): answered 500 or the connection closed, the process kept serving',
          labelNames: ['site'],
          registers: [registry],
        });
    }
  }

  /** Faults caught so far. */
  get count(): number {
    return this.faults;
  }

  /** Counts and reports one fault; never throws itself. */
  report(site: FaultSite, error: unknown): void {
    this.faults++;
    this.counter?.inc({ site });
    try {
      this.options.onFault?.(site, error);
    } catch {
      // a failing reporter must not undo the last resort
    }
  }

  /** A `request` listener that cannot throw: a fault is answered 500 (or the connection closed). */
  request<A extends unknown[]>(handler: (req: IncomingMessage, res: ServerResponse, ...rest: A) => void) {
    return (req: IncomingMessage, res: ServerResponse, ...rest: A): void => {
      try {
        handler(req, res, ...rest);
      } catch (error) {
        this.report('request', error);
        failResponse(res);
      }
    };
  }

  /** An `upgrade` listener that cannot throw: a fault is answered 500 on the raw socket (or it is closed). */
  upgrade(handler: (req: IncomingMessage, socket: Duplex, head: Buffer) => void) {
    return (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
      try {
        handler(req, socket, head);
      } catch (error) {
        this.report('upgrade', error);
        failSocket(socket);
      }
    };
  }

  /**
   * An event callback of a proxied exchange that cannot throw: on a fault `cleanUp` runs (it ends the
   * exchange: answers or destroys what is left), itself guarded.
   */
  callback<A extends unknown[]>(fn: (...args: A) => void, cleanUp: () => void): (...args: A) => void {
    return (...args: A): void => {
      try {
        fn(...args);
      } catch (error) {
        this.report('proxy', error);
        try {
          cleanUp();
        } catch {
          // cleaning up after a fault is best effort
        }
      }
    };
  }
}

/** Answers 500 when nothing was sent yet, else closes the connection (a half-sent response cannot be repaired). */
export function failResponse(res: ServerResponse): void {
  try {
    if (!res.headersSent && !res.destroyed) {
      res.writeHead(500, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(FAULT_BODY),
        connection: 'close',
      });
      res.end(FAULT_BODY);
    } else {
      res.destroy();
    }
  } catch {
    res.destroy();
  }
}

/** Writes a raw 500 on an upgrade's socket when it is still writable, then closes it. */
export function failSocket(socket: Duplex): void {
  try {
    if (socket.writable && !socket.destroyed) {
      socket.end(
        `HTTP/1.1 500 Internal Server Error\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(FAULT_BODY)}\r\nconnection: close\r\n\r\n${FAULT_BODY}`,
      );
      socket.once('finish', () => socket.destroy());
    } else {
      socket.destroy();
    }
  } catch {
    socket.destroy();
  }
}
