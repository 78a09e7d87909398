import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

const root = join(__dirname, '..', '..', '..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Starts transcribe-api with TRANSCRIBE_ROLE=worker in a child process (the real main.ts, compiled
 * on the fly) and resolves once it listens (its /healthz answers).
 */
export async function startWorkerProcess(env: Record<string, string>): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const port = await freePort();
  let output = '';
  const child = spawn(process.execPath, ['-r', join(root, 'libs/testing/jest/register-ts.cjs'), join(root, 'apps/transcribe-api/src/main.ts')], {
    cwd: root,
    env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'warn', ...env, TRANSCRIBE_ROLE: 'worker', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`worker process exited with ${child.exitCode}:\n${output}`);
    const up = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return { child, url, output: () => output };
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`worker process did not start:\n${output}`);
}

export async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}
