import { readFileSync } from 'node:fs';
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a real server, to simulate an outage of that server
 * (RabbitMQ, PostgreSQL, Redis…) without stopping it for everyone else:
 *
 * ```ts
 * const proxy = await startTcpProxy(testServices().amqpUrl!);     // or { host, port }
 * const app = await createTestApp(def, { AMQP_URL: proxy.rewriteUrl(testServices().amqpUrl!) });
 * await proxy.cut();       // open connections are reset; new ones are reset at once (or refused)
 * await proxy.restore();   // new connections are forwarded again
 * await proxy.close();
 * ```
 */
export interface TcpProxy {
  readonly host: string;
  /** Port the proxy listens on (stays the same across cut/restore). */
  readonly port: number;
  /** Where the proxy forwards to. */
  readonly target: { host: string; port: number };
  /** Connections being forwarded now. */
  readonly openConnections: number;
  /** Client connections accepted so far (including those reset while cut). */
  readonly accepted: number;
  /** True between `cut()` and `restore()`. */
  readonly isCut: boolean;
  /** `url` with its host and port replaced by the proxy's (user, password, path and query kept). */
  rewriteUrl(url: string): string;
  /**
   * Simulates the target going away: every open connection is destroyed with a TCP reset (both
   * sides), and until `restore()` new connections are reset right after they are accepted
   * (`newConnections: 'reset'`, the default) or refused (`'refuse'`: the listening socket is
   * closed, clients get ECONNREFUSED; `restore()` listens on the same port again).
   */
  cut(opts?: { newConnections?: 'reset' | 'refuse' }): Promise<void>;
  /** Forwards new connections again. */
  restore(): Promise<void>;
  /** Destroys every connection and stops listening. */
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket;
}

function parseTarget(target: string | { host: string; port: number }): { host: string; port: number } {
  if (typeof target !== 'string') return { host: target.host, port: target.port };
  const u = new URL(target);
  const defaults: Record<string, number> = { 'amqp:': 5672, 'postgres:': 5432, 'postgresql:': 5432, 'redis:': 6379 };
  const port = u.port ? Number(u.port) : defaults[u.protocol];
  if (!port) throw new Error(`startTcpProxy: no port in ${JSON.stringify(target)} and no default for ${u.protocol}`);
  return { host: u.hostname.replace(/^\[|\]$/g, ''), port };
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once('error', onError);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * The first port of the kernel's ephemeral range (Linux: /proc/sys/net/ipv4/ip_local_port_range,
 * 32768 by default), which it hands out to `listen(0)` and as the local port of outgoing connections.
 */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 2048) return low;
  } catch {
    // not Linux
  }
  return 32768;
}

/**
 * Listens on a free port below the ephemeral range. While `cut({ newConnections: 'refuse' })` has
 * the port released, a port of that range could be taken by any outgoing connection — even by a
 * client reconnecting to the proxy itself, which the kernel then connects to itself (same address
 * and port on both ends) — and `restore()` could not listen on it again; a port below the range is
 * never handed out by the kernel.
 */
async function listenBelowEphemeral(server: Server): Promise<number> {
  const low = ephemeralLow();
  const from = Math.min(10_000, Math.floor(low / 2));
  let last: unknown;
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = from + Math.floor(Math.random() * (low - from));
    try {
      return await listen(server, port);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      last = err;
    }
  }
  throw new Error(`TcpProxy: no free port below ${low}: ${(last as Error).message}`);
}

function reset(socket: Socket): void {
  if (socket.destroyed) return;
  // A RST (not a FIN) is what a peer sees when a server dies or a network path breaks.
  if (typeof socket.resetAndDestroy === 'function' && !socket.connecting) socket.resetAndDestroy();
  else socket.destroy();
}

/** Starts a proxy forwarding to `target` (`host:port` object or a URL such as `amqp://guest:guest@127.0.0.1:5672`). */
export async function startTcpProxy(target: string | { host: string; port: number }): Promise<TcpProxy> {
  const to = parseTarget(target);
  const pairs = new Set<Pair>();
  let accepted = 0;
  let mode: 'forward' | 'reset' | 'refuse' = 'forward';
  let closed = false;

  const server = createServer({ pauseOnConnect: true }, (client) => {
    accepted += 1;
    client.on('error', () => undefined);
    if (mode !== 'forward' || closed) {
      reset(client);
      return;
    }
    const upstream = createConnection({ host: to.host, port: to.port });
    const pair: Pair = { client, upstream };
    pairs.add(pair);
    // An error on one side (target down, reset) resets the other; a clean close ends it gracefully.
    const fail = () => {
      pairs.delete(pair);
      reset(client);
      reset(upstream);
    };
    const onClose = (other: Socket) => () => {
      if (!other.destroyed) other.end();
      if (client.destroyed && upstream.destroyed) pairs.delete(pair);
    };
    upstream.on('error', fail);
    client.on('error', fail);
    upstream.on('close', onClose(client));
    client.on('close', onClose(upstream));
    upstream.once('connect', () => {
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
  });
  server.on('error', () => undefined);

  const port = await listenBelowEphemeral(server);

  const dropAll = () => {
    for (const pair of [...pairs]) {
      pairs.delete(pair);
      reset(pair.client);
      reset(pair.upstream);
    }
  };
  const stopListening = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
    });

  return {
    host: '127.0.0.1',
    port,
    target: to,
    get openConnections() {
      return pairs.size;
    },
    get accepted() {
      return accepted;
    },
    get isCut() {
      return mode !== 'forward';
    },
    rewriteUrl(url: string) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    async cut(opts = {}) {
      if (closed) throw new Error('TcpProxy: cut() after close()');
      mode = opts.newConnections ?? 'reset';
      const stopped = mode === 'refuse' ? stopListening() : Promise.resolve();
      dropAll();
      await stopped;
    },
    async restore() {
      if (closed) throw new Error('TcpProxy: restore() after close()');
      if (!server.listening) {
        try {
          await listen(server, port);
        } catch (err) {
          throw new Error(`TcpProxy: cannot listen on 127.0.0.1:${port} again: ${(err as Error).message}`);
        }
      }
      mode = 'forward';
    },
    async close() {
      if (closed) return;
      closed = true;
      dropAll();
      await stopListening();
    },
  };
}
