/**
 * The targets an SSRF test aims at, in one fixture: an HTTP server on 127.0.0.1 (port 0) that
 * records the path of every request and answers a redirect to its `?to=` query parameter (else
 * `answer`, default 204), and a fake DNS server (`startFakeDnsServer`) where a public-looking name
 * resolves to 127.0.0.1 and `meta.example.com` to the metadata address 169.254.169.254, with
 * `dns.promises.lookup` routed to it for those two names (`routeSystemLookupTo`).
 *
 * ```ts
 * const targets = await startSsrfTargets({ loopbackName: 'videos.example.com', redirectStatus: 302 });
 * targets.privateUrls('/v.mp4', 'https');   // literal loopback, private, metadata, IPv6-mapped loopback URLs
 * targets.redirectTo('http://meta.example.com/latest/meta-data/');   // http://<loopbackName>:<port>/r?to=…
 * targets.hits;                           // ['/r?to=…']: paths requested, in order
 * targets.dns.queries;                    // questions the DNS server received
 * await targets.close();                  // restores the system lookup, stops both servers
 * ```
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { routeSystemLookupTo } from './dns-lookup';
import { startFakeDnsServer, type FakeDnsServer } from './dns-server';

export interface SsrfAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export interface SsrfTargetsOptions {
  /** The public-looking name the DNS server resolves to 127.0.0.1; default `hooks.example.com`. */
  loopbackName?: string;
  /** Status of the redirect answered to `?to=`; default 307. */
  redirectStatus?: 301 | 302 | 303 | 307 | 308;
  /** The answer to a request without `?to=`, by path (with query); default 204, no body. */
  answer?: (path: string) => SsrfAnswer;
}

export interface SsrfTargets {
  port: number;
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** The path (with query) of every request the HTTP server received, in order. */
  readonly hits: string[];
  /** `loopback` resolves to 127.0.0.1, `metadata` (`meta.example.com`) to 169.254.169.254. */
  names: { loopback: string; metadata: string };
  dns: FakeDnsServer;
  /** `http://<host>:<port>/r?to=<url>` (host default `names.loopback`): answered by a redirect to `url`. */
  redirectTo(url: string, host?: string): string;
  /**
   * URLs naming a private address literally: loopback (this server), 10/8, 172.16/12 and 192.168/16,
   * the metadata address, and IPv6-mapped loopback (this server).
   */
  privateUrls(path?: string, scheme?: 'http' | 'https'): string[];
  close(): Promise<void>;
}

export const METADATA_NAME = 'meta.example.com';

export async function startSsrfTargets(opts: SsrfTargetsOptions = {}): Promise<SsrfTargets> {
  const loopback = opts.loopbackName ?? 'hooks.example.com';
  const redirectStatus = opts.redirectStatus ?? 307;
  const answer = opts.answer ?? ((): SsrfAnswer => ({ status: 204 }));
  const hits: string[] = [];
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    hits.push(path);
    const to = new URL(path, 'http://x').searchParams.get('to');
    if (to) return void res.writeHead(redirectStatus, { location: to }).end();
    const { status, headers, body } = answer(path);
    res.writeHead(status, headers).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  let dns: FakeDnsServer;
  try {
    dns = await startFakeDnsServer({ [loopback]: { A: ['127.0.0.1'] }, [METADATA_NAME]: { A: ['169.254.169.254'] } });
  } catch (err) {
    await new Promise((resolve) => server.close(resolve));
    throw err;
  }
  const restoreLookup = routeSystemLookupTo(dns, [loopback, METADATA_NAME]);

  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    hits,
    names: { loopback, metadata: METADATA_NAME },
    dns,
    redirectTo: (url, host = loopback) => `http://${host}:${port}/r?to=${encodeURIComponent(url)}`,
    privateUrls: (path = '/hook', scheme = 'http') => [
      `${scheme}://127.0.0.1:${port}${path}`,
      `${scheme}://10.0.0.7${path}`,
      `${scheme}://172.16.0.1${path}`,
      `${scheme}://192.168.1.10${path}`,
      `${scheme}://169.254.169.254/latest/meta-data/`,
      `${scheme}://[::ffff:127.0.0.1]:${port}${path}`,
    ],
    close: async () => {
      restoreLookup();
      await dns.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
