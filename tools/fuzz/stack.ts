// Starts an app of the repository for a fuzz run as it is deployed — `node dist/apps/<app>/main.js`
// in its own process, a throwaway PostgreSQL database (TEST_DATABASE_URL, else the local server),
// the in-process event bus and in-memory counters, a temporary DATA_DIR — and runs its commands
// (`main.js create-account …`) against the same database. Knows when the process died.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, freePort, waitHealthy, type TestDatabase } from '@platform/testing';

export interface FuzzApp {
  name: string;
  url: string;
  /** its process id (the bench reads its memory) */
  pid: number;
  /** the process ended (a crash, unless we stopped it) */
  exited(): { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** the last 20,000 characters it wrote */
  output(): string;
  /** runs `main.js <args>` with this app's environment (a command of its ServiceDefinition) */
  command(args: string[]): Promise<string>;
  stop(): Promise<void>;
}

export async function startApp(root: string, name: string, opts: { env?: Record<string, string>; database: boolean }): Promise<FuzzApp> {
  const database: TestDatabase | null = opts.database ? await createTestDatabase() : null;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `fuzz-${name}-`));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const v of ['DATABASE_URL', 'DATABASE_SCHEMA', 'AMQP_URL', 'REDIS_URL', 'PORT']) delete env[v];
  Object.assign(env, {
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    PORT: String(port),
    DATA_DIR: dataDir,
    ...(database ? { DB_MIGRATE_ON_START: 'true', DATABASE_URL: database.url, ...(database.schema ? { DATABASE_SCHEMA: database.schema } : {}) } : {}),
    ...opts.env,
  });
  const main = path.join(root, 'dist/apps', name, 'main.js');
  if (!fs.existsSync(main)) throw new Error(`fuzz: ${main} is missing (run node tools/build.mjs)`);
  const child: ChildProcess = spawn(process.execPath, [main], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (c: Buffer) => (output = (output + c.toString()).slice(-20_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  child.once('exit', (code, signal) => (exit = { code, signal }));
  let stopping = false;
  const url = `http://127.0.0.1:${port}`;
  const app: FuzzApp = {
    name,
    url,
    pid: child.pid!,
    exited: () => (stopping ? undefined : exit),
    output: () => output,
    command: (args) =>
      new Promise((resolve, reject) =>
        execFile(process.execPath, [main, ...args], { cwd: root, env: { ...env, PORT: '0' }, timeout: 60_000 }, (err, stdout, stderr) =>
          err ? reject(new Error(`${name} ${args[0]} failed: ${stderr || err.message}`)) : resolve(stdout),
        ),
      ),
    async stop() {
      stopping = true;
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
      }
      await database?.drop().catch(() => undefined);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  try {
    await waitHealthy(name, url, child, () => output, 120_000);
  } catch (err) {
    await app.stop();
    throw err;
  }
  return app;
}
