// The MCP server (apps/knowledge-mcp), built and started in a child process, standing for the process
// inside the MCP container that a fake engine pretends to run: its output goes to that container's
// log (`onLine`), as the engine would collect it. Nothing of knowledge-mcp's code is imported.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { waitHealthy } from '@platform/testing';

const ROOT = path.resolve(__dirname, '../../../../..');

export interface RunningMcpServer {
  url: string;
  stop(): Promise<void>;
}

/** Test files run in parallel and the build rewrites dist/ in place: one build at a time (mkdir is atomic). */
function buildOnce(): Promise<void> {
  const lock = path.join(ROOT, 'dist', '.knowledge-mcp-test.lock');
  mkdirSync(path.dirname(lock), { recursive: true });
  return (async () => {
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
      execFileSync(process.execPath, ['tools/build.mjs', 'knowledge-mcp'], { cwd: ROOT, stdio: 'pipe' });
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  })();
}

export async function startMcpServer(env: Record<string, string>, onLine: (stream: 'stdout' | 'stderr', line: string) => void): Promise<RunningMcpServer> {
  await buildOnce();
  const childEnv: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'info', ...env };
  for (const name of ['AMQP_URL', 'REDIS_URL', 'DATABASE_URL', 'DATABASE_SCHEMA']) delete childEnv[name];
  const child: ChildProcess = spawn(process.execPath, ['dist/apps/knowledge-mcp/main.js'], { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  for (const stream of ['stdout', 'stderr'] as const) {
    let pending = '';
    child[stream]!.on('data', (c: Buffer) => {
      output += c.toString();
      pending += c.toString();
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        onLine(stream, pending.slice(0, nl));
        pending = pending.slice(nl + 1);
      }
    });
  }
  const url = `http://127.0.0.1:${env.PORT}`;
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  try {
    await waitHealthy('knowledge-mcp', url, child, () => output, 60_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, stop };
}
