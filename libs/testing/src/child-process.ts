import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';

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
