import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { HttpSafetyError } from './errors';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has. Injectable so tests can fake DNS answers. */
export type LookupFn = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver (getaddrinfo, like every other Node client), all addresses, in resolver order. */
export const systemLookup: LookupFn = async (hostname) => {
  const answers = await dns.lookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** Runs `lookup` with a deadline and turns failures into DNS_ERROR. IP literals resolve to themselves. */
export async function resolveHost(hostname: string, lookup: LookupFn, timeoutMs: number): Promise<ResolvedAddress[]> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family) return [{ address: bare, family: family as 4 | 6 }];
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new HttpSafetyError('DNS_ERROR', `resolving ${hostname} took longer than ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    const addresses = await Promise.race([lookup(bare), deadline]);
    if (addresses.length === 0) throw new HttpSafetyError('DNS_ERROR', `${hostname} has no address`);
    return addresses;
  } catch (err) {
    if (err instanceof HttpSafetyError) throw err;
    const code = (err as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new HttpSafetyError('DNS_ERROR', `${hostname} could not be resolved (${code})`, { cause: err });
  } finally {
    clearTimeout(timer);
  }
}
