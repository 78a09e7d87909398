import { Injectable, Module } from '@nestjs/common';
import { WebSocketGateway, WebSocketServer, SubscribeMessage, MessageBody, ConnectedSocket } from '@nestjs/websockets';
import { BaseConfig, startService, type RunningService, type ServiceDefinition } from '@platform/platform';
import { createTestRedisPrefix, freePort, sendRaw, testServices, uniqueSuffix, type TestRedisPrefix } from '@platform/testing';
import type { Server, Socket } from 'socket.io';
import { io, type Socket as ClientSocket } from 'socket.io-client';
import { connectionName, useRealtime, type RealtimeAdapter } from './realtime-adapter';

@Injectable()
@WebSocketGateway({ namespace: '/news' })
class NewsGateway {
  @WebSocketServer() server!: Server;

  @SubscribeMessage('join')
  join(@MessageBody() room: string, @ConnectedSocket() socket: Socket): { joined: string } {
    void socket.join(room);
    return { joined: room };
  }

  publish(room: string, text: string): void {
    this.server.to(room).emit('headline', { text });
  }
}

@Module({ providers: [NewsGateway] })
class NewsModule {}

/** The adapter the last started app installed. */
let installed: RealtimeAdapter | undefined;

function definition(key: string, redisUrl: string | undefined): ServiceDefinition {
  return {
    name: 'news-api',
    port: 0,
    config: BaseConfig,
    module: () => ({ module: NewsModule }),
    configure: (app) => {
      installed = useRealtime(app, { redisUrl, key });
    },
  };
}

function connect(service: RunningService): Promise<ClientSocket> {
  const client = io(`${service.url}/news`, { transports: ['websocket'], reconnection: false });
  return new Promise((resolve, reject) => {
    client.once('connect', () => resolve(client));
    client.once('connect_error', reject);
  });
}

function next<T>(client: ClientSocket, event: string): Promise<T> {
  return new Promise((resolve) => client.once(event, resolve));
}

const env = { NODE_ENV: 'test', LOG_LEVEL: 'silent' };

describe('RealtimeAdapter (Socket.IO over Redis)', () => {
  const { redisUrl } = testServices();
  const services: RunningService[] = [];
  const clients: ClientSocket[] = [];
  let redisPrefix: TestRedisPrefix;

  /** A replica on the test Redis, or (`redis: false`) with the in-memory adapter. */
  async function replica(key: string, { redis = true } = {}): Promise<RunningService> {
    const service = await startService(definition(key, redis ? redisUrl : undefined), { env, port: 0, host: '127.0.0.1', logger: false });
    services.push(service);
    // What an app does before it counts as ready: its subscription to the other replicas is in place.
    await installed!.ready();
    return service;
  }

  async function joined(service: RunningService, room: string): Promise<ClientSocket> {
    const client = await connect(service);
    clients.push(client);
    await client.emitWithAck('join', room);
    return client;
  }

  beforeAll(() => {
    redisPrefix = createTestRedisPrefix();
  });

  afterEach(async () => {
    for (const c of clients.splice(0)) c.disconnect();
    for (const s of services.splice(0)) await s.close();
  });

  afterAll(async () => {
    await redisPrefix.cleanup();
  });

  (redisUrl ? it : it.skip)('delivers a broadcast made on one replica to a client of another', async () => {
    const key = `${redisPrefix.prefix}socket.io`;
    const [a, b] = [await replica(key), await replica(key)];
    const client = await joined(b, 'port-of-rotterdam');
    const received = next<{ text: string }>(client, 'headline');
    a.app.get(NewsGateway).publish('port-of-rotterdam', 'ship arrived');
    await expect(received).resolves.toEqual({ text: 'ship arrived' });
  });

  (redisUrl ? it : it.skip)('keeps services with another key apart (no cross-talk on a shared Redis)', async () => {
    const a = await replica(`${redisPrefix.prefix}one:socket.io`);
    const b = await replica(`${redisPrefix.prefix}other:socket.io`);
    const sameService = await replica(`${redisPrefix.prefix}other:socket.io`);
    const client = await joined(b, 'room');
    const headlines: string[] = [];
    client.on('headline', (h: { text: string }) => headlines.push(h.text));
    a.app.get(NewsGateway).publish('room', 'not for you');
    const marker = next(client, 'headline');
    sameService.app.get(NewsGateway).publish('room', 'for you');
    await marker;
    expect(headlines).toEqual(['for you']);
  });

  (redisUrl ? it : it.skip)('reports its two Redis connections in /readyz as `realtime`', async () => {
    const service = await replica(`${redisPrefix.prefix}ready:socket.io`);
    const res = await fetch(`${service.url}/readyz`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { checks: Record<string, unknown> }).checks.realtime).toEqual({ status: 'up' });
  });

  it('is not ready while its Redis cannot be reached, and says which connection', async () => {
    const unreachable = `redis://127.0.0.1:${await freePort()}`;
    const service = await startService(definition(`unreachable-${uniqueSuffix(6)}:socket.io`, unreachable), { env, port: 0, host: '127.0.0.1', logger: false });
    services.push(service);
    const res = await fetch(`${service.url}/readyz`);
    expect(res.status).toBe(503);
    const { checks } = (await res.json()) as { checks: Record<string, { status: string; error?: string }> };
    expect(checks.realtime.status).toBe('down');
    // Refused at once, so reconnecting already, unless the first attempt is still under way (then the PING times out).
    expect(checks.realtime.error).toMatch(/^(Redis connection \(publish\) is reconnecting|timed out after \d+ ms)$/);
    await service.close();
    services.splice(services.indexOf(service), 1);
    // ioredis ends a connection that never came up with a 2 s timer (its disconnectTimeout), which
    // would keep this test process alive after the run: let it fire here.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
  });

  // Found by `npm run fuzz`: engine.io ended these after a second without a word, and the gateway answered 502.
  it('answers an upgrade for another path as the app answers that path, and still upgrades Socket.IO', async () => {
    const service = await replica(`upgrades-${uniqueSuffix(6)}`, { redis: false });
    const port = Number(new URL(service.url).port);
    const started = Date.now();
    const other = await sendRaw(port, 'GET /nowhere HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n');
    expect(other.status).toBe(404);
    expect(Date.now() - started).toBeLessThan(900);
    const malformed = await sendRaw(port, 'GET /nowhere/%ED%A0%80 HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n');
    expect(malformed.status).toBe(400);
    const health = await sendRaw(port, 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n');
    expect(health.status).toBe(200);
    const client = await joined(service, 'still-works');
    expect(client.connected).toBe(true);
  });

  it('without Redis, broadcasts reach the clients of this process', async () => {
    const service = await replica(`unused-${uniqueSuffix(6)}`, { redis: false });
    const client = await joined(service, 'local');
    const received = next<{ text: string }>(client, 'headline');
    service.app.get(NewsGateway).publish('local', 'hello');
    await expect(received).resolves.toEqual({ text: 'hello' });
    const readiness = (await (await fetch(`${service.url}/readyz`)).json()) as { checks: Record<string, unknown> };
    expect(readiness.checks).not.toHaveProperty('realtime');
  });

  (redisUrl ? it : it.skip)('names its two Redis connections after the key and closes them when the app closes', async () => {
    const key = `${redisPrefix.prefix}close:socket.io`;
    const service = await replica(key);
    await joined(service, 'r');
    expect(await connectionsNamed(connectionName(key))).toBe(2);
    for (const c of clients.splice(0)) c.disconnect();
    await service.close();
    services.splice(0);
    // QUIT is answered just before the server drops the connection: allow it that moment.
    let left = await connectionsNamed(connectionName(key));
    for (let i = 0; i < 50 && left > 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      left = await connectionsNamed(connectionName(key));
    }
    expect(left).toBe(0);
  });

  async function connectionsNamed(name: string): Promise<number> {
    const { default: Redis } = await import('ioredis');
    const admin = new Redis(redisUrl!);
    try {
      const list = (await admin.client('LIST')) as string;
      return list.split('\n').filter((line) => line.includes(` name=${name} `)).length;
    } finally {
      admin.disconnect();
    }
  }
});
