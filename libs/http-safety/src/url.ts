import { isIP } from 'node:net';
import { classifyAddress, isAllowedAddress } from './address';
import { HttpSafetyError } from './errors';
import { LookupFn, ResolvedAddress, resolveHost, systemLookup } from './lookup';

export interface UrlPolicy {
  /** Only `https:` URLs (otherwise `http:` and `https:`). Default false. */
  httpsOnly?: boolean;
  /** Lift the address rule: private, loopback, link-local… addresses allowed (cloud metadata never). */
  allowPrivate?: boolean;
}

export interface ResolvePolicy extends UrlPolicy {
  /** DNS resolution; defaults to the system resolver. */
  lookup?: LookupFn;
  /** Deadline for resolving the host. Default 5000 ms. */
  dnsTimeoutMs?: number;
}

const MAX_URL_LENGTH = 2048;

const refuse = (message: string) => new HttpSafetyError('INVALID_URL', message);

/**
 * Checks what can be checked without the network: a well-formed absolute http(s) URL (https only
 * when asked), no embedded credentials, a host that is not `localhost`, and — when the host is an
 * IP literal — an address that may be reached. Returns the parsed URL; throws HttpSafetyError
 * (`INVALID_URL` or `BLOCKED_ADDRESS`) otherwise.
 */
export function assertPublicUrl(input: string | URL, policy: UrlPolicy = {}): URL {
  if (typeof input === 'string' && input.length > MAX_URL_LENGTH) {
    throw refuse(`the URL is longer than ${MAX_URL_LENGTH} characters`);
  }
  let url: URL;
  try {
    url = typeof input === 'string' ? new URL(input) : new URL(input.href);
  } catch {
    throw refuse(`"${String(input).slice(0, 200)}" is not an absolute URL`);
  }
  const allowed = policy.httpsOnly ? ['https:'] : ['http:', 'https:'];
  if (!allowed.includes(url.protocol)) {
    throw refuse(`the URL must use ${policy.httpsOnly ? 'https' : 'http or https'}, not ${url.protocol.replace(':', '')}`);
  }
  if (url.username || url.password) throw refuse('the URL must not contain a user name or password');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!host) throw refuse('the URL has no host');
  if (isIP(host)) {
    assertAllowedAddress(host, url, policy);
  } else if (!policy.allowPrivate && /(^|\.)localhost\.?$/i.test(host)) {
    throw new HttpSafetyError('BLOCKED_ADDRESS', `${url.host} is a local host name; use a public address`);
  }
  return url;
}

/** Throws BLOCKED_ADDRESS when `address` may not be reached under the policy. */
export function assertAllowedAddress(address: string, url: URL | string, policy: UrlPolicy = {}): void {
  if (isAllowedAddress(address, policy)) return;
  const host = typeof url === 'string' ? url : url.host;
  throw new HttpSafetyError(
    'BLOCKED_ADDRESS',
    `${host} resolves to ${address}, a ${classifyAddress(address)} address; only public internet addresses may be used`,
  );
}

/**
 * `assertPublicUrl` plus DNS: every address the host resolves to must be allowed. This is the
 * check to run when a URL is saved; `safeFetch` checks again at connection time, so a later DNS
 * change (rebinding) cannot reach a private address either.
 */
export async function assertResolvesPublic(
  input: string | URL,
  policy: ResolvePolicy = {},
): Promise<{ url: URL; addresses: ResolvedAddress[] }> {
  const url = assertPublicUrl(input, policy);
  const addresses = await resolveHost(url.hostname, policy.lookup ?? systemLookup, policy.dnsTimeoutMs ?? 5000);
  for (const { address } of addresses) assertAllowedAddress(address, url, policy);
  return { url, addresses };
}
