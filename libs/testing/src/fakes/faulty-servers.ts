import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server, type Socket } from 'node:net';

/** A loopback server standing for an outside system that misbehaves. */
export interface FaultyServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** TCP connections accepted so far. */
  readonly connections: number;
  /** HTTP requests received so far (the silent server counts none: it never parses them). */
  readonly requests: number;
  /** Destroys every connection and stops listening. */
  close(): Promise<void>;
}

export interface ScriptedAnswer {
  status: number;
  body?: string | object;
  headers?: Record<string, string>;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

function handle(server: Server, port: number, sockets: Set<Socket>, counts: { connections: number; requests: number }): FaultyServer {
  return {
    url: `http://127.0.0.1:${port}`,
    host: '127.0.0.1',
    port,
    get connections() {
      return counts.connections;
    },
    get requests() {
      return counts.requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * Accepts TCP connections, reads whatever is sent and never answers (an outside server that hangs):
 * what a client's timeouts are for.
 */
export async function startSilentServer(): Promise<FaultyServer> {
  const sockets = new Set<Socket>();
  const counts = { connections: 0, requests: 0 };
  const server = createTcpServer((socket) => {
    counts.connections++;
    sockets.add(socket);
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  return handle(server, await listen(server), sockets, counts);
}

/**
 * An HTTP server whose n-th request (1-based) gets `answer(n, req)`: e.g. always 500, or 503 twice and
 * then 200. An object body is sent as JSON.
 */
export async function startScriptedHttpServer(answer: (n: number, req: IncomingMessage) => ScriptedAnswer): Promise<FaultyServer> {
  const sockets = new Set<Socket>();
  const counts = { connections: 0, requests: 0 };
  const server = createHttpServer((req, res) => {
    counts.requests++;
    const a = answer(counts.requests, req);
    const json = a.body !== undefined && typeof a.body === 'object';
    const body = a.body === undefined ? '' : json ? JSON.stringify(a.body) : String(a.body);
    req.resume();
    res.writeHead(a.status, { 'Content-Type': json ? 'application/json' : 'text/plain', ...a.headers }).end(body);
  });
  server.on('connection', (socket) => {
    counts.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return handle(server, await listen(server), sockets, counts);
}
