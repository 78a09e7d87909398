import { Agent, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

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
