import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { serveSession, type SessionServer } from '@platform/pglite-server';

/**
 * The embedded default (ARCHITECTURE.md): with DATABASE_URL unset a service uses one PGlite per
 * process, persisted under `${DATA_DIR}/pglite` and served over pglite-socket on a free loopback port,
 * so that the same `pg`/TypeORM code path connects to it. Creating an instance costs about 2.5 s and
 * 200 MB, so every service of `npm start` shares it (one schema each); the instance is a globalThis
 * singleton keyed by the data directory.
 *
 * PGlite loads itself with dynamic import(), which Jest's VM refuses: inside Jest start it in
 * globalSetup (libs/testing does) and connect over TCP.
 */
export interface EmbeddedPostgres {
  url: string;
  dataDir: string;
}

interface Instance {
  url: string;
  dataDir: string;
  db: PGlite;
  server: SessionServer;
  users: number;
}

const INSTANCES_KEY = Symbol.for('platform.database.embeddedPostgres');

function instances(): Map<string, Promise<Instance>> {
  const g = globalThis as unknown as Record<symbol, Map<string, Promise<Instance>> | undefined>;
  return (g[INSTANCES_KEY] ??= new Map());
}

/** Every connection shares the one PGlite session (see SessionQueue); this bounds the TCP connections. */
const MAX_CONNECTIONS = 256;

async function start(dataDir: string): Promise<Instance> {
  await mkdir(dataDir, { recursive: true });
  const [{ PGlite }, { vector }, { pg_trgm }, { citext }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite-pgvector'),
    // Subpath exports, which this repo's `moduleResolution: node` cannot type.
    importContrib('pg_trgm'),
    importContrib('citext'),
  ]);
  // Extensions are only loaded by `CREATE EXTENSION` (pgvector for knowledge-api).
  const db = await PGlite.create(dataDir, { extensions: { vector, pg_trgm, citext } as Extensions });
  let server: SessionServer;
  try {
    server = await serveSession(db, { host: '127.0.0.1', port: 0, maxConnections: MAX_CONNECTIONS });
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
  return { url: `postgres://postgres@${server.host}:${server.port}/postgres`, dataDir, db, server, users: 0 };
}

type Extensions = NonNullable<NonNullable<Parameters<typeof PGlite.create>[1]>['extensions']>;

function importContrib(name: string): Promise<Record<string, unknown>> {
  return import(`@electric-sql/pglite/contrib/${name}`) as Promise<Record<string, unknown>>;
}

function resolveDir(dataDir: string): string {
  if (!dataDir) throw new Error('ensureEmbeddedPostgres: DATA_DIR is empty');
  return path.resolve(dataDir, 'pglite');
}

/**
 * Starts (once per process and data directory) the embedded PostgreSQL and returns its URL. Later
 * calls with the same directory return the same instance.
 */
export async function ensureEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  const dir = resolveDir(dataDir);
  const map = instances();
  let pending = map.get(dir);
  if (!pending) {
    pending = start(dir);
    map.set(dir, pending);
    pending.catch(() => map.delete(dir));
  }
  const instance = await pending;
  return { url: instance.url, dataDir: instance.dataDir };
}

/**
 * Like `ensureEmbeddedPostgres`, counting the caller as a user; `releaseEmbeddedPostgres` stops the
 * instance (socket server, then PGlite, which flushes to disk) when its last user releases it. The
 * DatabaseModule uses this pair, so the instance lives as long as any service in the process uses it.
 */
export async function acquireEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  const embedded = await ensureEmbeddedPostgres(dataDir);
  const instance = await instances().get(embedded.dataDir)!;
  instance.users += 1;
  return embedded;
}

export async function releaseEmbeddedPostgres(dataDir: string): Promise<void> {
  const dir = resolveDir(dataDir);
  const pending = instances().get(dir);
  if (!pending) return;
  const instance = await pending;
  instance.users -= 1;
  if (instance.users <= 0) await stopEmbeddedPostgres(dataDir);
}

/** Stops the embedded instance of `dataDir` now (all of them without an argument). */
export async function stopEmbeddedPostgres(dataDir?: string): Promise<void> {
  const map = instances();
  const dirs = dataDir === undefined ? [...map.keys()] : [resolveDir(dataDir)];
  await Promise.all(
    dirs.map(async (dir) => {
      const pending = map.get(dir);
      if (!pending) return;
      map.delete(dir);
      const instance = await pending.catch(() => undefined);
      if (!instance) return;
      await instance.server.stop().catch(() => undefined);
      await instance.db.close().catch(() => undefined);
    }),
  );
}
