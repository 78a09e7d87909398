import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from './test-database';

/** A TCP port free on loopback right now, for an app started in a child process. */
export async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

/**
 * Polls `${url}/healthz` until it answers 2xx. Throws with the child's output when it exits first or
 * nothing answers within `timeoutMs`.
 */
export async function waitHealthy(name: string, url: string, child: ChildProcess, output: () => string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode}:\n${output()}`);
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${name} did not answer ${url}/healthz within ${timeoutMs} ms:\n${output()}`);
}

/**
 * The repository's root, where `dist/apps/<app>/main.js` is built: libs/testing/src → ../../.., or
 * two levels more when this file runs compiled from dist/out (the benchmarks).
 */
const ROOT = ((up) => (path.basename(up) === 'out' && path.basename(path.dirname(up)) === 'dist' ? path.resolve(up, '../..') : up))(path.resolve(__dirname, '../../..'));

/**
 * Test files run in parallel and the build rewrites dist/ in place: one build of an app at a time,
 * under a lock directory (mkdir is atomic); a lock older than two minutes was left by a killed run.
 */
async function withBuildLock<T>(app: string, fn: () => Promise<T>): Promise<T> {
  const lock = path.join(ROOT, 'dist', `.${app}-test.lock`);
  mkdirSync(path.dirname(lock), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      const held = statSync(lock, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > 120_000) rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * Builds an app (`node tools/build.mjs --if-stale <app>`: nothing when dist/ is up to date) under the build lock, so that test files running in
 * parallel never rewrite `dist/` under each other: for a test that spawns the built service itself
 * (several replicas on one database, SIGKILLs); `startBuiltApp` calls it too.
 */
export function buildForTest(app: string): Promise<void> {
  return withBuildLock(app, async () => {
    execFileSync(process.execPath, ['tools/build.mjs', '--if-stale', app], { cwd: ROOT, stdio: 'pipe' });
  });
}

export interface BuiltAppOptions {
  /** Variables of the child besides NODE_ENV=test, PORT and DATA_DIR (and the database's when `database`). */
  env?: Record<string, string>;
  /** Variables of this process the child must not inherit (e.g. AMQP_URL, REDIS_URL). */
  unset?: string[];
  /** A throwaway database (createTestDatabase), migrated by the app at start. */
  database?: boolean;
  /** Port to listen on (default: a free one). */
  port?: number;
  /** Each line the child writes, as it comes. */
  onLine?: (stream: 'stdout' | 'stderr', line: string) => void;
  timeoutMs?: number;
}

export interface BuiltApp {
  url: string;
  port: number;
  /** Everything the child wrote so far. */
  output(): string;
  /** SIGTERM, waits for the exit, then drops the database and the data directory. */
  close(): Promise<void>;
}

/**
 * Another app of the repository, built (`node tools/build.mjs <app>`) and started from
 * `dist/apps/<app>/main.js` in a child process, as production runs it: a test of one app reaches
 * another over HTTP, never by importing it. Resolves once `/healthz` answers.
 */
export async function startBuiltApp(app: string, opts: BuiltAppOptions = {}): Promise<BuiltApp> {
  return withBuildLock(app, async () => {
    execFileSync(process.execPath, ['tools/build.mjs', '--if-stale', app], { cwd: ROOT, stdio: 'pipe' });
    const database: TestDatabase | null = opts.database ? await createTestDatabase() : null;
    const dataDir = mkdtempSync(path.join(tmpdir(), `${app}-built-`));
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of [...(opts.unset ?? []), 'DATABASE_SCHEMA']) delete env[name];
    Object.assign(env, { NODE_ENV: 'test', LOG_LEVEL: 'warn', DATA_DIR: dataDir, ...(database ? databaseEnv(database) : {}), ...opts.env });
    const cleanUp = async () => {
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    };
    let spawned: SpawnedApp;
    try {
      spawned = await spawnBuiltApp(app, env, { port: opts.port, onLine: opts.onLine, timeoutMs: opts.timeoutMs ?? 90_000, inherit: false });
    } catch (err) {
      await cleanUp();
      throw err;
    }
    const close = async () => {
      await spawned.kill('SIGTERM');
      await cleanUp();
    };
    return { url: spawned.url, port: spawned.port, output: spawned.output, close };
  });
}

/** The settings of an app on a throwaway database: its URL, its schema when it has one, migrations at start. */
export function databaseEnv(database: TestDatabase): Record<string, string> {
  return { DB_MIGRATE_ON_START: 'true', DATABASE_URL: database.url, ...(database.schema ? { DATABASE_SCHEMA: database.schema } : {}) };
}

export interface SpawnedApp {
  child: ChildProcess;
  url: string;
  port: number;
  /** Everything the child wrote so far. */
  output(): string;
  /** Sends `signal` (a crash test's SIGKILL, an orchestrator's SIGTERM) and waits for the exit; nothing when it exited already. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * An app already built (buildForTest) started from `dist/apps/<app>/main.js` in a child process with
 * `env` over this process's environment (`inherit: false`: `env` alone; `unset`: names the child must
 * not get), on `port` or a free one;
 * resolves once `/healthz` answers. For tests that stop and start the same service on one database
 * (a replica killed mid-work and its successor): they keep the database, this keeps the process.
 */
export async function spawnBuiltApp(
  app: string,
  env: NodeJS.ProcessEnv,
  opts: { port?: number; onLine?: BuiltAppOptions['onLine']; timeoutMs?: number; inherit?: boolean; unset?: string[] } = {},
): Promise<SpawnedApp> {
  const port = opts.port ?? (await freePort());
  const childEnv: NodeJS.ProcessEnv = { ...(opts.inherit === false ? {} : process.env), ...env, PORT: String(port) };
  for (const name of opts.unset ?? []) delete childEnv[name];
  const child: ChildProcess = spawn(process.execPath, [`dist/apps/${app}/main.js`], { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  for (const stream of ['stdout', 'stderr'] as const) {
    let pending = '';
    child[stream]!.on('data', (c: Buffer) => {
      const text = c.toString();
      output += text;
      if (!opts.onLine) return;
      pending += text;
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        opts.onLine(stream, pending.slice(0, nl));
        pending = pending.slice(nl + 1);
      }
    });
  }
  const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill(signal);
    await exited;
  };
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitHealthy(app, url, child, () => output, opts.timeoutMs ?? 120_000);
  } catch (err) {
    await kill();
    throw err;
  }
  return { child, url, port, output: () => output, kill };
}
