import Redis, { type RedisOptions } from 'ioredis';

/**
 * ioredis options (also BullMQ's `connection`) for a REDIS_URL: host, port, user, password, TLS for
 * `rediss://`, the logical database from the path (`redis://host:6379/2`; 0 when absent), and a
 * 5-second connect timeout. `overrides` win, e.g. `{ db: 1, maxRetriesPerRequest: null }` for a
 * BullMQ worker in its own database.
 */
export function redisOptions(url: string, overrides: RedisOptions = {}): RedisOptions {
  const u = new URL(url);
  return {
    host: u.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1',
    port: u.port ? Number(u.port) : 6379,
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    tls: u.protocol === 'rediss:' ? {} : undefined,
    db: overrides.db ?? databaseOf(u),
    connectTimeout: 5_000,
    ...overrides,
  };
}

function databaseOf(u: URL): number {
  const path = u.pathname.replace(/^\//, '');
  const db = path === '' ? 0 : Number(path);
  if (!Number.isInteger(db) || db < 0) throw new RangeError(`REDIS_URL names database "${path}": use a number, e.g. redis://host:6379/0`);
  return db;
}

export interface RedisClientOptions {
  /** Connection errors (ioredis reconnects by itself); default: ignored. */
  onError?: (err: Error) => void;
}

/**
 * The platform's client for commands (counters, caches): a command fails after two reconnect
 * attempts instead of waiting for Redis to come back, and commands sent while connecting are queued.
 */
export function createRedisClient(url: string, options: RedisClientOptions = {}): Redis {
  const client = new Redis(redisOptions(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true }));
  client.on('error', (err: Error) => options.onError?.(err));
  return client;
}

/** Ends a connection: QUIT when it is up, else at once (QUIT would wait for an unreachable server). */
export async function closeRedis(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  if (client.status !== 'ready') {
    client.disconnect();
    return;
  }
  await client.quit().catch(() => client.disconnect());
}
