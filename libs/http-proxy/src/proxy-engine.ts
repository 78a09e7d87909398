// Forwards HTTP requests and WebSocket upgrades to an upstream with node:http, streaming bodies both
// ways (nothing is buffered: backpressure flows through pipe), over keep-alive agents.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { requestIdFrom } from '@platform/platform';
import { stripHopByHop, upstreamRequestHeaders } from './headers';
import { failResponse, failSocket, ListenerFaults, type ListenerFaultsOptions } from './listener-faults';

/** Where one request goes: the upstream origin and the path (with query) to ask it for. */
export interface ProxyTarget {
  /** the upstream's name, in outcomes and the 502 body */
  readonly name: string;
  /** upstream origin, e.g. http://127.0.0.1:3004 */
  readonly upstream: URL;
  /** the path and query string to send upstream */
  readonly path: string;
  /** the prefix the upstream is published under (X-Forwarded-Prefix); none: the header is passed on as received */
  readonly prefix?: string;
}

export interface ProxyOutcome {
  service: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  requestId: string;
  error?: string;
}

export interface ProxyEngineOptions {
  /** idle time (no bytes either way) after which an upstream exchange is abandoned (502 before headers) */
  timeoutMs: number;
  /** time allowed to open a new TCP connection to an upstream */
  connectTimeoutMs: number;
  /** called once per proxied request or upgrade when it completes or fails */
  onComplete?: (outcome: ProxyOutcome) => void;
  /** where faults of the engine's callbacks (and of the take-over server's listeners) are counted and reported */
  faults?: ListenerFaultsOptions;
}

/** What a client may send on an upgrade before the upstream's handshake answer (kept for the upstream). */
const MAX_EARLY_UPGRADE_BYTES = 64 * 1024;

export class ProxyEngine {
  private readonly httpAgent = new http.Agent({ keepAlive: true, maxSockets: 512, maxFreeSockets: 64, scheduling: 'lifo' });
  private readonly httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 512, maxFreeSockets: 64, scheduling: 'lifo' });

  /** Client sockets of upgrades in progress or established (WebSockets): the HTTP server no longer tracks them. */
  private readonly tunnels = new Set<Socket>();

  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];

  /** The last resort of every callback of a proxied exchange (and of the take-over server's listeners). */
  readonly faults: ListenerFaults;

  constructor(private readonly options: ProxyEngineOptions) {
    this.faults = new ListenerFaults(options.faults);
  }

  /** Proxied requests not finished yet. */
  get activeRequests(): number {
    return this.inFlight;
  }

  /** Resolves true when no proxied request is in flight, or false after `timeoutMs`. */
  idle(timeoutMs: number): Promise<boolean> {
    if (this.inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.idleWaiters = this.idleWaiters.filter((w) => w !== waiter);
        resolve(false);
      }, timeoutMs);
      this.idleWaiters.push(waiter);
    });
  }

  /** Open upgraded connections. */
  get openTunnels(): number {
    return this.tunnels.size;
  }

  /** Cuts every upgraded connection (shutdown: an open WebSocket would otherwise keep the server open). */
  closeTunnels(): void {
    for (const socket of this.tunnels) socket.destroy();
    this.tunnels.clear();
  }

  /** Tells `onComplete` how one proxied request or upgrade ended. */
  private reporter(req: IncomingMessage, target: ProxyTarget, started: number, requestId: string) {
    return (status: number, error?: string): void =>
      this.options.onComplete?.({
        service: target.name,
        method: req.method ?? 'GET',
        path: target.path,
        status,
        durationMs: performance.now() - started,
        requestId,
        error,
      });
  }

  /** Proxies one HTTP request; answers 502 itself when the upstream cannot be reached. */
  forward(req: IncomingMessage, res: ServerResponse, target: ProxyTarget): void {
    const started = performance.now();
    const requestId = requestIdOf(req);
    let finished = false;
    this.inFlight++;
    const report = this.reporter(req, target, started, requestId);
    const done = (status: number, error?: string): void => {
      if (finished) return;
      finished = true;
      if (--this.inFlight === 0 && this.idleWaiters.length > 0) {
        const waiters = this.idleWaiters;
        this.idleWaiters = [];
        for (const w of waiters) w();
      }
      try {
        report(status, error);
      } catch (err) {
        this.faults.report('proxy', err);
      }
    };
    let proxyReq: http.ClientRequest | undefined;
    // A fault in any step below answers 500 (or cuts a half-sent response) and ends the exchange.
    const guard = <A extends unknown[]>(fn: (...args: A) => void) =>
      this.faults.callback(fn, () => {
        proxyReq?.destroy();
        failResponse(res);
        done(500, 'internal fault');
      });
    guard(() => {
      proxyReq = this.startForward(req, res, target, requestId, done, guard);
    })();
  }

  private startForward(
    req: IncomingMessage,
    res: ServerResponse,
    target: ProxyTarget,
    requestId: string,
    done: (status: number, error?: string) => void,
    guard: <A extends unknown[]>(fn: (...args: A) => void) => (...args: A) => void,
  ): http.ClientRequest {
    const upstream = target.upstream;
    const secure = upstream.protocol === 'https:';
    const proxyReq = (secure ? https : http).request({
      protocol: upstream.protocol,
      hostname: upstream.hostname,
      port: upstream.port || (secure ? 443 : 80),
      method: req.method,
      path: target.path,
      headers: upstreamRequestHeaders(req.headers, {
        remoteAddress: req.socket.remoteAddress,
        encrypted: (req.socket as { encrypted?: boolean }).encrypted === true,
        prefix: target.prefix,
        requestId,
      }),
      agent: secure ? this.httpsAgent : this.httpAgent,
    });
    this.applyTimeouts(proxyReq, target.name);

    proxyReq.on(
      'response',
      guard((proxyRes: IncomingMessage) => {
        const headers = stripHopByHop(proxyRes.headers);
        if (headers['x-request-id'] === undefined) headers['x-request-id'] = requestId;
        const status = proxyRes.statusCode ?? 502;
        res.writeHead(status, proxyRes.statusMessage, headers);
        proxyRes.pipe(res);
        proxyRes.on('error', () => res.destroy());
        proxyRes.on('end', () => done(status));
      }),
    );

    proxyReq.on(
      'error',
      guard((err: Error) => {
        if (!res.headersSent) {
          sendUnavailable(res, target.name, requestId);
          done(502, err.message);
        } else {
          // The upstream failed midway through its response: the client sees a truncated response.
          res.destroy();
          done(res.statusCode, err.message);
        }
      }),
    );

    // The client went away before the exchange finished: abandon the upstream request too.
    res.on(
      'close',
      guard(() => {
        if (!res.writableFinished) {
          proxyReq.destroy();
          done(499, 'client closed the connection');
        }
      }),
    );
    req.on('error', () => proxyReq.destroy());
    const headers = req.headers;
    if (headers['content-length'] === undefined && headers['transfer-encoding'] === undefined) {
      // No body (GET, HEAD, most DELETEs): nothing to stream.
      proxyReq.end();
      req.resume();
    } else {
      req.pipe(proxyReq);
    }
    return proxyReq;
  }

  /** Proxies a WebSocket (or other) upgrade: handshake forwarded, then both sockets piped raw. */
  upgrade(req: IncomingMessage, socket: Socket, head: Buffer, target: ProxyTarget): void {
    const started = performance.now();
    const requestId = requestIdOf(req);
    const reporter = this.reporter(req, target, started, requestId);
    let reported = false;
    const report = (status: number, error?: string): void => {
      if (reported) return;
      reported = true;
      try {
        reporter(status, error);
      } catch (err) {
        this.faults.report('proxy', err);
      }
    };
    let proxyReq: http.ClientRequest | undefined;
    // A fault in any step below answers 500 on the raw socket (or closes it) and ends the exchange.
    const guard = <A extends unknown[]>(fn: (...args: A) => void) =>
      this.faults.callback(fn, () => {
        proxyReq?.destroy();
        failSocket(socket);
        report(500, 'internal fault');
      });
    guard(() => {
      proxyReq = this.startUpgrade(req, socket, head, target, requestId, report, guard);
    })();
  }

  private startUpgrade(
    req: IncomingMessage,
    socket: Socket,
    head: Buffer,
    target: ProxyTarget,
    requestId: string,
    report: (status: number, error?: string) => void,
    guard: <A extends unknown[]>(fn: (...args: A) => void) => (...args: A) => void,
  ): http.ClientRequest {
    const upstream = target.upstream;
    const secure = upstream.protocol === 'https:';

    const headers = upstreamRequestHeaders(req.headers, {
      remoteAddress: req.socket.remoteAddress,
      encrypted: (req.socket as { encrypted?: boolean }).encrypted === true,
      prefix: target.prefix,
      requestId,
    });
    headers.connection = 'Upgrade';
    if (req.headers.upgrade) headers.upgrade = req.headers.upgrade;

    const proxyReq = (secure ? https : http).request({
      protocol: upstream.protocol,
      hostname: upstream.hostname,
      port: upstream.port || (secure ? 443 : 80),
      method: req.method,
      path: target.path,
      headers,
      // A dedicated connection: an upgraded socket leaves the keep-alive pool for good.
      agent: false,
    });
    this.applyTimeouts(proxyReq, target.name);

    this.tunnels.add(socket);
    // The client left, before or after the handshake: the upstream side goes too (an upstream
    // answering later must not find a half-open tunnel).
    socket.once('close', () => {
      this.tunnels.delete(socket);
      proxyReq.destroy();
    });
    socket.on('error', () => socket.destroy());
    // Until the upstream answers, read from the client so that its leaving is noticed (the server's
    // sockets are half-open capable, and a socket nobody reads reports no end), keeping what it sends
    // for the upstream. A WebSocket client sends nothing before the handshake, so this stays small.
    const early: Buffer[] = head.length > 0 ? [head] : [];
    let earlyBytes = head.length;
    const onEarlyData = (chunk: Buffer): void => {
      early.push(chunk);
      earlyBytes += chunk.length;
      if (earlyBytes > MAX_EARLY_UPGRADE_BYTES) socket.destroy();
    };
    const onEarlyEnd = (): void => {
      socket.destroy();
    };
    socket.on('data', onEarlyData);
    socket.once('end', onEarlyEnd);
    const stopEarlyReading = (): void => {
      socket.removeListener('data', onEarlyData);
      socket.removeListener('end', onEarlyEnd);
      socket.pause(); // pipe() resumes it; in between nothing may flow into the void
    };

    proxyReq.on(
      'upgrade',
      guard((proxyRes: IncomingMessage, proxySocket: Socket, proxyHead: Buffer) => {
        stopEarlyReading();
        if (socket.destroyed) {
          proxySocket.destroy();
          report(499, 'client closed the connection');
          return;
        }
        proxySocket.setTimeout(0);
        proxySocket.setNoDelay(true);
        socket.setNoDelay(true);
        socket.write(rawHead(101, proxyRes.statusMessage ?? 'Switching Protocols', proxyRes.rawHeaders));
        if (proxyHead.length > 0) socket.write(proxyHead);
        for (const chunk of early) proxySocket.write(chunk);
        proxySocket.on('error', () => socket.destroy());
        proxySocket.on('close', () => socket.destroy());
        socket.once('close', () => proxySocket.destroy());
        proxySocket.pipe(socket);
        socket.pipe(proxySocket);
        report(101);
      }),
    );

    // The upstream refused the upgrade with an ordinary response: relay it and close.
    proxyReq.on(
      'response',
      guard((proxyRes: IncomingMessage) => {
        const status = proxyRes.statusCode ?? 502;
        stopEarlyReading();
        if (socket.destroyed) {
          proxyRes.resume();
          report(499, 'client closed the connection');
          return;
        }
        socket.write(rawHead(status, proxyRes.statusMessage ?? '', withoutHopByHopRaw(proxyRes.rawHeaders)));
        proxyRes.pipe(socket, { end: false });
        proxyRes.on('end', () => socket.destroySoon());
        proxyRes.on('error', () => socket.destroy());
        report(status);
      }),
    );

    proxyReq.on(
      'error',
      guard((err: Error) => {
        if (socket.destroyed) {
          report(499, 'client closed the connection');
          return;
        }
        if (socket.writable) {
          const body = unavailableBody(target.name);
          socket.write(
            rawHead(502, 'Bad Gateway', [
              'content-type',
              'application/json; charset=utf-8',
              'content-length',
              String(Buffer.byteLength(body)),
              'x-request-id',
              requestId,
              'connection',
              'close',
            ]) + body,
          );
          socket.destroySoon();
        } else {
          socket.destroy();
        }
        report(502, err.message);
      }),
    );
    proxyReq.end();
    return proxyReq;
  }

  private applyTimeouts(proxyReq: http.ClientRequest, service: string): void {
    const { timeoutMs, connectTimeoutMs } = this.options;
    proxyReq.setTimeout(timeoutMs, () => {
      proxyReq.destroy(new Error(`${service} sent nothing for ${timeoutMs} ms`));
    });
    proxyReq.on('socket', (socket) => {
      if (!socket.connecting) return;
      const timer = setTimeout(() => {
        proxyReq.destroy(new Error(`could not connect to ${service} within ${connectTimeoutMs} ms`));
      }, connectTimeoutMs);
      socket.once('connect', () => clearTimeout(timer));
      socket.once('close', () => clearTimeout(timer));
    });
  }

  close(): void {
    this.closeTunnels();
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

/**
 * The id the platform's request logger gave the request, else the client's X-Request-Id when it is
 * one the services accept too (the platform's rule), else a new one: the gateway, the service and the
 * response then carry the same id.
 */
function requestIdOf(req: IncomingMessage): string {
  const id = (req as IncomingMessage & { id?: unknown }).id;
  if (typeof id === 'string' && id.length > 0) return id;
  return requestIdFrom(req);
}

export function unavailableBody(service: string): string {
  return JSON.stringify({ statusCode: 502, error: 'Bad Gateway', message: `${service} is unavailable`, service });
}

function sendUnavailable(res: ServerResponse, service: string, requestId: string): void {
  const body = unavailableBody(service);
  res.writeHead(502, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-request-id': requestId,
  });
  res.end(body);
}

function rawHead(status: number, message: string, rawHeaders: string[]): string {
  let head = `HTTP/1.1 ${status} ${message}\r\n`;
  for (let i = 0; i < rawHeaders.length; i += 2) head += `${rawHeaders[i]}: ${rawHeaders[i + 1]}\r\n`;
  return `${head}\r\n`;
}

function withoutHopByHopRaw(rawHeaders: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase();
    if (name === 'connection' || name === 'keep-alive' || name === 'transfer-encoding' || name === 'upgrade') continue;
    out.push(rawHeaders[i], rawHeaders[i + 1]);
  }
  out.push('connection', 'close');
  return out;
}
