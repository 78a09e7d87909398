import Redis from 'ioredis';
import { testServices, uniqueSuffix } from './services';

export interface TestRedisPrefix {
  /** Redis URL when a server answered the global setup (with the worker's db index), else undefined: use in-memory. */
  url?: string;
  /** `test:<random>:`: prefix every key (ioredis `keyPrefix`, BullMQ `prefix`). */
  prefix: string;
  /** Database index of this Jest worker (see `testRedisDb`). */
  db: number;
  /** Deletes every key under the prefix (no-op without Redis). */
  cleanup(): Promise<void>;
}

/**
 * A Redis database index per Jest worker (1…15; 0 stays for development), so parallel workers rarely
 * share a keyspace; the key prefix is what actually isolates tests.
 */
export function testRedisDb(): number {
  const worker = Number(process.env.JEST_WORKER_ID ?? '1');
  return Number.isInteger(worker) && worker > 0 ? ((worker - 1) % 15) + 1 : 1;
}

/** Deletes every key starting with `prefix` in each of `dbs` (default: the URL's own database). */
export async function deleteKeysByPrefix(redisUrl: string, prefix: string, dbs?: number[]): Promise<void> {
  for (const db of dbs ?? [undefined]) {
    const client = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, ...(db === undefined ? {} : { db }) });
    try {
      await client.connect();
      let cursor = '0';
      do {
        const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
        cursor = next;
        if (keys.length) await client.del(...keys);
      } while (cursor !== '0');
    } finally {
      client.disconnect();
    }
  }
}

export function createTestRedisPrefix(): TestRedisPrefix {
  const { redisUrl } = testServices();
  const prefix = `test:${uniqueSuffix(10)}:`;
  const db = testRedisDb();
  if (!redisUrl) return { prefix, db, cleanup: async () => undefined };
  const url = new URL(redisUrl);
  url.pathname = `/${db}`;
  return {
    url: url.toString(),
    prefix,
    db,
    cleanup: () => deleteKeysByPrefix(url.toString(), prefix),
  };
}
