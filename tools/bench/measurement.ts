import { Agent, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startService, type RunningService, type ServiceDefinition } from '@platform/platform';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

// The result of an app's own benchmark suite (apps/<app>/bench/*.bench.ts): one figure next to its
// baseline measured in the same run. Defined once here; the app suites import it, and the loopback helper below.
export interface BenchMeasurement {
  /** `<app>: <what>`, shown in the table and used as key in dist/bench/results.json */
  name: string;
  value: number;
  unit: string;
  baseline: number;
  /** value / baseline */
  ratio: number;
  /** how it was measured and what the baseline is */
  detail: string;
}

/** Listens on a free loopback port; `close()` drops kept-alive connections too. For baseline servers. */
export async function listenOnLoopback(server: Server): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Drops a bench's throwaway schema on a connection of its own, once the app using it has closed. */
export async function dropBenchSchema(databaseUrl: string, schema: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

/** An app started for a bench suite on a throwaway schema and data directory; `close()` removes both. */
export interface BenchService {
  service: RunningService;
  url: string;
  schema: string;
  close(): Promise<void>;
}

/**
 * Starts `def` in this process (silent, migrations applied) on a schema and DATA_DIR of its own:
 * DATABASE_URL when given (or set), the embedded database otherwise. `close()` stops the app first
 * (its workers poll the schema), then drops the schema on a connection of its own and the directory.
 */
export async function startBenchService(def: ServiceDefinition<any>, env: Record<string, string>, databaseUrl = process.env.DATABASE_URL): Promise<BenchService> {
  const dataDir = await mkdtemp(join(tmpdir(), `${def.name}-bench-`));
  const schema = `bench_${randomUUID().slice(0, 8)}`;
  const service = await startService(def, {
    port: 0,
    logger: false,
    env: {
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATA_DIR: dataDir,
      DB_MIGRATE_ON_START: 'true',
      DATABASE_SCHEMA: schema,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      ...env,
    },
  });
  return {
    service,
    url: service.url,
    schema,
    close: async () => {
      await service.close();
      if (databaseUrl) await dropBenchSchema(databaseUrl, schema);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A bare Node HTTP server answering like /healthz: the floor every scenario is measured against. */
export const BARE_SERVER = `
const http = require('node:http');
const body = JSON.stringify({ status: 'ok' });
http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}).listen(Number(process.env.PORT), '127.0.0.1');`;

/**
 * Run with `node -e` (PORT; UPSTREAM, and PREFIX to strip, '' for none).
 * The least a node:http reverse proxy does (route by prefix, keep-alive upstream agent, headers copied
 * as they are, bodies streamed both ways; no header rewriting, request ids, timeouts or metrics): the
 * floor of a proxy hop on this machine, to tell the gateway's own cost from the cost of any hop.
 */
export const BARE_PROXY = `
const http = require('node:http');
const upstream = new URL(process.env.UPSTREAM);
const prefix = process.env.PREFIX;
const agent = new http.Agent({ keepAlive: true, scheduling: 'lifo' });
http.createServer((req, res) => {
  const path = req.url.startsWith(prefix) ? req.url.slice(prefix.length) || '/' : req.url;
  const up = http.request({ hostname: upstream.hostname, port: upstream.port, method: req.method, path, headers: req.headers, agent }, (upRes) => {
    res.writeHead(upRes.statusCode, upRes.headers);
    upRes.pipe(res);
  });
  up.on('error', () => res.destroy());
  req.pipe(up);
}).listen(Number(process.env.PORT), '127.0.0.1');`;

const keptAlive = new Agent({ keepAlive: true, maxSockets: 64 });

/** One request over a kept-alive connection (a JSON body when given): the status and the body text. */
export function sendRequest(url: string, method: string, body?: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, agent: keptAlive, headers: body ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers } : headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs `task(0 … total-1)` with `concurrency` callers at once; resolves with tasks per second. */
export async function inParallel(total: number, concurrency: number, task: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, total) }, async () => {
      while (next < total) await task(next++);
    }),
  );
  return total / ((performance.now() - t0) / 1000);
}
