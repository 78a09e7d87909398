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

/** The repository's root (libs/testing/src → ../../..), where `dist/apps/<app>/main.js` is built. */
const ROOT = path.resolve(__dirname, '../../..');

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
 * Builds an app (`node tools/build.mjs <app>`) under the build lock, so that test files running in
 * parallel never rewrite `dist/` under each other: for a test that spawns the built service itself
 * (several replicas on one database, SIGKILLs); `startBuiltApp` calls it too.
 */
export function buildForTest(app: string): Promise<void> {
  return withBuildLock(app, async () => {
    execFileSync(process.execPath, ['tools/build.mjs', app], { cwd: ROOT, stdio: 'pipe' });
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
    execFileSync(process.execPath, ['tools/build.mjs', app], { cwd: ROOT, stdio: 'pipe' });
    const database: TestDatabase | null = opts.database ? await createTestDatabase() : null;
    const dataDir = mkdtempSync(path.join(tmpdir(), `${app}-built-`));
    const port = opts.port ?? (await freePort());
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of [...(opts.unset ?? []), 'DATABASE_SCHEMA']) delete env[name];
    Object.assign(env, {
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      PORT: String(port),
      DATA_DIR: dataDir,
      ...(database ? { DB_MIGRATE_ON_START: 'true', DATABASE_URL: database.url, ...(database.schema ? { DATABASE_SCHEMA: database.schema } : {}) } : {}),
      ...opts.env,
    });
    const child: ChildProcess = spawn(process.execPath, [`dist/apps/${app}/main.js`], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
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
    const url = `http://127.0.0.1:${port}`;
    const close = async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await exited;
      }
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    };
    try {
      await waitHealthy(app, url, child, () => output, opts.timeoutMs ?? 90_000);
    } catch (err) {
      await close();
      throw err;
    }
    return { url, port, output: () => output, close };
  });
}
