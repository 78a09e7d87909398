// A small HTTP client for the tests: any Host header (fetch refuses to set one), raw status, headers, body.
import http from 'node:http';
import type { Socket } from 'node:net';

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json<T = any>(): T;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

export function call(base: string, path: string, opts: { host?: string; target?: string; method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  const url = new URL(path, base);
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.host) headers.host = opts.host;
  if (opts.target) headers['x-autostart-target'] = opts.target;
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: opts.method ?? 'GET', headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** Opens an upgrade (an echo tunnel once proxied); resolves with the status line and the socket. */
export function openUpgrade(base: string, path: string, target: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; socket: Socket; head: string }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { headers: { connection: 'Upgrade', upgrade: 'echo', 'x-autostart-target': target }, agent: false });
    req.on('upgrade', (res, socket) => resolve({ status: res.statusCode ?? 0, headers: res.headers, socket, head: '' }));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, socket: res.socket, head: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end();
  });
}

export function closeClients(): void {
  agent.destroy();
}

/** Polls `check` until it returns a value (not undefined) or `timeoutMs` passes. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 15_000, stepMs = 50): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
