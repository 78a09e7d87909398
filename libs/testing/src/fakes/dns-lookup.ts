/**
 * Name resolution through a fake DNS server, for code that resolves host names itself
 * (`@platform/http-safety` calls `dns.promises.lookup`, the system resolver).
 *
 * ```ts
 * const dns = await startFakeDnsServer({ 'hooks.example.com': { A: ['127.0.0.1'] } });
 * const restore = routeSystemLookupTo(dns);   // dns.promises.lookup now asks the fake server
 * …
 * restore();
 * const lookup = fakeDnsLookup(dns);          // a LookupFn, where the code takes one
 * ```
 */
import { promises as dnsPromises } from 'node:dns';
import type { FakeDnsServer } from './dns-server';

export interface LookedUpAddress {
  address: string;
  family: 4 | 6;
}

/** Every A and AAAA record of a name, asked of the fake server; ENOTFOUND when it has none. */
export function fakeDnsLookup(server: Pick<FakeDnsServer, 'address'>): (hostname: string) => Promise<LookedUpAddress[]> {
  const resolver = new dnsPromises.Resolver({ timeout: 1000, tries: 1 });
  resolver.setServers([server.address]);
  return async (hostname) => {
    const [v4, v6] = await Promise.all([
      resolver.resolve4(hostname).catch(() => [] as string[]),
      resolver.resolve6(hostname).catch(() => [] as string[]),
    ]);
    const all: LookedUpAddress[] = [...v4.map((address) => ({ address, family: 4 as const })), ...v6.map((address) => ({ address, family: 6 as const }))];
    if (all.length === 0) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
    return all;
  };
}

/**
 * Routes `dns.promises.lookup` (the system resolver as code in this process calls it) to the fake
 * server for names it knows; other names (localhost, …) still go to the real resolver. Returns
 * the function that puts the real one back.
 */
export function routeSystemLookupTo(server: Pick<FakeDnsServer, 'address'>, names: string[]): () => void {
  const real = dnsPromises.lookup;
  const fake = fakeDnsLookup(server);
  const known = new Set(names.map((n) => n.toLowerCase()));
  const patched = async (hostname: string, options?: unknown) => {
    if (!known.has(hostname.toLowerCase())) return (real as (h: string, o?: unknown) => Promise<unknown>)(hostname, options);
    const all = await fake(hostname);
    const opts = (typeof options === 'object' && options !== null ? options : {}) as { all?: boolean };
    return opts.all ? all : all[0];
  };
  dnsPromises.lookup = patched as typeof dnsPromises.lookup;
  return () => {
    dnsPromises.lookup = real;
  };
}
