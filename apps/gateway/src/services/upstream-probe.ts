import http from 'node:http';
import https from 'node:https';

/**
 * Asks an upstream's `/healthz` whether it answers. Resolves 'up' on any 2xx within the timeout,
 * 'down' otherwise; never throws.
 */
export function probeUpstream(upstream: URL, timeoutMs: number): Promise<'up' | 'down'> {
  return new Promise((resolve) => {
    const client = upstream.protocol === 'https:' ? https : http;
    const req = client.get(new URL('/healthz', upstream), { timeout: timeoutMs, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300 ? 'up' : 'down');
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve('down'));
  });
}
