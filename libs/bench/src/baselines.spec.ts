import { freePort, waitHealthy } from '@platform/testing';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { BARE_PROXY, BARE_SERVER } from './baselines';
import { listenOnLoopback } from './loopback';

/** Runs a baseline with `node -e` on a free port; resolves once it answers /healthz. */
async function runBaseline(source: string, env: Record<string, string> = {}): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['-e', source], { env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy('baseline', url, child, () => output, 20_000);
  return { url, child };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

describe('baselines', () => {
  it('BARE_SERVER answers like /healthz', async () => {
    const { url, child } = await runBaseline(BARE_SERVER);
    try {
      const res = await fetch(`${url}/anything`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await res.json()).toEqual({ status: 'ok' });
    } finally {
      await stop(child);
    }
  });

  it('BARE_PROXY strips the prefix and passes method, headers, body and status through', async () => {
    const upstream = await listenOnLoopback(
      createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          // /healthz answers waitHealthy through the proxy's prefix-less path
          res.writeHead(req.url === '/healthz' ? 200 : 207, { 'x-upstream': 'yes' });
          res.end(JSON.stringify({ method: req.method, url: req.url, marker: req.headers['x-marker'] ?? null, body: Buffer.concat(chunks).toString() }));
        });
      }),
    );
    const { url, child } = await runBaseline(BARE_PROXY, { UPSTREAM: upstream.url, PREFIX: '/auth' });
    try {
      const res = await fetch(`${url}/auth/api/x?q=1`, { method: 'PUT', headers: { 'x-marker': 'm' }, body: 'hello' });
      expect(res.status).toBe(207);
      expect(res.headers.get('x-upstream')).toBe('yes');
      expect(await res.json()).toEqual({ method: 'PUT', url: '/api/x?q=1', marker: 'm', body: 'hello' });
      expect(await (await fetch(`${url}/auth`)).json()).toMatchObject({ url: '/' });
    } finally {
      await stop(child);
      await upstream.close();
    }
  });
});
