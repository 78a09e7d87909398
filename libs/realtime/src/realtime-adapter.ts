import { Logger, type INestApplicationContext } from '@nestjs/common';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { HealthRegistry } from '@platform/platform';
import { closeRedis, redisOptions } from '@platform/rate-limit';
import { createAdapter } from '@socket.io/redis-adapter';
import Redis from 'ioredis';
import { ServerResponse, type IncomingMessage, type Server as HttpServer } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Server, ServerOptions } from 'socket.io';

export interface RealtimeOptions {
  /** Redis for the adapter (REDIS_URL); without it broadcasts reach this process's clients only. */
  redisUrl?: string;
  /**
   * Prefix of the adapter's Redis channels. Every service (and every test app) needs its own:
   * services share one Redis, and two services with a `/` namespace would otherwise receive each
   * other's broadcasts. Convention: `${REDIS_KEY_PREFIX}socket.io`, default `<service>:socket.io`.
   */
  key: string;
}

/**
 * Nest's Socket.IO adapter with the Redis adapter of socket.io: a broadcast (`server.emit`,
 * `server.to(room).emit`, from a gateway or any provider holding the server) reaches the clients of
 * every replica. One publishing and one subscribing connection per app, opened when the first
 * Socket.IO server is created and closed when the app closes; from then on `/readyz` reports them as
 * `realtime` (down while either is not connected). Without `redisUrl` the default in-memory adapter
 * is used (one process: `npm start`, tests without Redis).
 */
export class RealtimeAdapter extends IoAdapter {
  private readonly logger = new Logger('Realtime');
  private clients?: { pub: Redis; sub: Redis };

  constructor(
    private readonly app: INestApplicationContext,
    private readonly options: RealtimeOptions,
  ) {
    super(app);
  }

  /** True when broadcasts go through Redis. */
  get distributed(): boolean {
    return Boolean(this.options.redisUrl);
  }

  override createIOServer(port: number, options?: ServerOptions): Server {
    // engine.io would end an upgrade for any other path after a second without a word (the gateway
    // then answered 502, found by `npm run fuzz`); the app answers those itself (answerOtherUpgrades).
    const server: Server = super.createIOServer(port, { ...options, destroyUpgrade: false } as ServerOptions);
    const http = (this as unknown as { httpServer?: HttpServer }).httpServer;
    if (port === 0 && http) answerOtherUpgrades(http, server.path());
    if (this.options.redisUrl) {
      if (!this.clients) {
        this.clients = this.connect(this.options.redisUrl);
        this.health()?.register(READINESS_CHECK, () => this.check());
      }
      const { pub, sub } = this.clients;
      server.adapter(createAdapter(pub, sub, { key: this.options.key }));
    }
    return server;
  }

  /**
   * Resolves once both Redis connections are up and the subscriptions made so far are in place (a
   * PING on each answers after the commands queued before it), so that a broadcast from another
   * replica reaches this one. Immediate without Redis or before the first server exists.
   */
  async ready(): Promise<void> {
    const clients = this.clients;
    if (clients) await Promise.all([clients.pub.ping(), clients.sub.ping()]);
  }

  /**
   * The readiness check (`realtime` in `/readyz`): down at once while either connection is lost
   * (reconnecting, instead of queueing a command until Redis is back); otherwise a PING on each,
   * which waits out a first connect and confirms the subscriptions made so far.
   */
  async check(): Promise<void> {
    const clients = this.clients;
    if (!clients) return;
    for (const [name, client] of [['publish', clients.pub], ['subscribe', clients.sub]] as const) {
      if (LOST.has(client.status)) throw new Error(`Redis connection (${name}) is ${client.status}`);
    }
    await this.ready();
  }

  /** Called by Nest when the app closes, after its Socket.IO servers. */
  override async dispose(): Promise<void> {
    const clients = this.clients;
    this.clients = undefined;
    if (clients) {
      this.health()?.unregister(READINESS_CHECK);
      await Promise.all([closeRedis(clients.pub), closeRedis(clients.sub)]);
    }
  }

  /** The app's readiness registry (absent in a bare Nest app without the platform module). */
  private health(): HealthRegistry | undefined {
    try {
      return this.app.get(HealthRegistry, { strict: false });
    } catch {
      return undefined;
    }
  }

  private connect(url: string): { pub: Redis; sub: Redis } {
    // Pub/sub connections wait for Redis instead of failing commands: a broadcast during an outage
    // is delivered to this process's clients and sent to the others once Redis is back.
    // Named after the key, so that CLIENT LIST tells which service a connection belongs to.
    const pub = new Redis(redisOptions(url, { maxRetriesPerRequest: null, connectionName: connectionName(this.options.key) }));
    const sub = pub.duplicate();
    for (const [name, client] of [['publish', pub], ['subscribe', sub]] as const) {
      client.on('error', (err: Error) => this.logger.warn(`redis (${name}): ${err.message}`));
    }
    return { pub, sub };
  }
}

const READINESS_CHECK = 'realtime';
/** ioredis states of a connection that was up, or tried, and is not now. */
const LOST = new Set(['reconnecting', 'close', 'end']);

/** A Redis client name (no spaces or quotes) from the channel key. */
export function connectionName(key: string): string {
  return key.replace(/[^A-Za-z0-9:._-]/g, '_');
}

/**
 * Installs the RealtimeAdapter on an app; call it from the ServiceDefinition's `configure`:
 * `configure: (app, config) => void useRealtime(app, { redisUrl: config.REDIS_URL, key: `${config.REDIS_KEY_PREFIX}socket.io` })`.
 */
const ANSWERING = Symbol('answers upgrades for other paths');

/**
 * An upgrade (WebSocket) request for a path other than Socket.IO's is handed to the app as the plain
 * request it is — what Node does on a server without an `upgrade` listener — so that it gets the app's
 * own answer (404, 401 … in the service's error shape) instead of a connection closed without one.
 */
export function answerOtherUpgrades(server: HttpServer, socketIoPath: string): void {
  const marked = server as HttpServer & { [ANSWERING]?: Set<string> };
  if (marked[ANSWERING]) {
    marked[ANSWERING].add(socketIoPath);
    return;
  }
  const paths = new Set([socketIoPath]);
  marked[ANSWERING] = paths;
  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    const path = (req.url ?? '/').split('?')[0];
    if ([...paths].some((p) => path === p || path.startsWith(`${p.replace(/\/$/, '')}/`))) return;
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    res.on('finish', () => {
      res.detachSocket(socket as Socket);
      socket.end();
    });
    socket.on('error', () => socket.destroy());
    server.emit('request', req, res);
  });
}

export function useRealtime(app: INestApplicationContext & { useWebSocketAdapter(adapter: IoAdapter): unknown }, options: RealtimeOptions): RealtimeAdapter {
  const adapter = new RealtimeAdapter(app, options);
  app.useWebSocketAdapter(adapter);
  return adapter;
}
