import { isIPv4, isIPv6 } from 'node:net';

/**
 * Why an address may or may not be reached from a customer-given URL. Everything but `public` is
 * refused unless the caller allows private addresses (`metadata` is refused even then).
 */
export type AddressClass =
  | 'public'
  | 'metadata'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'cgnat'
  | 'multicast'
  | 'unique-local'
  | 'reserved'
  | 'invalid';

/** Cloud instance metadata endpoints (AWS, GCP, Azure, OpenStack; AWS's IPv6 one). */
const METADATA = new Set(['169.254.169.254', 'fd00:ec2:0:0:0:0:0:254']);

interface V4Range {
  base: number;
  bits: number;
  cls: AddressClass;
}

const v4 = (cidr: string, cls: AddressClass): V4Range => {
  const [addr, bits] = cidr.split('/');
  return { base: ipv4ToInt(addr), bits: Number(bits), cls };
};

/** IANA IPv4 special-purpose registry: every block that is not globally reachable. */
const V4_RANGES: V4Range[] = [
  v4('0.0.0.0/32', 'unspecified'),
  v4('0.0.0.0/8', 'reserved'), // "this network"; Linux connects 0.x to the local host
  v4('10.0.0.0/8', 'private'),
  v4('100.64.0.0/10', 'cgnat'), // also Alibaba's metadata 100.100.100.200
  v4('127.0.0.0/8', 'loopback'),
  v4('169.254.0.0/16', 'link-local'),
  v4('172.16.0.0/12', 'private'),
  v4('192.0.0.0/24', 'reserved'), // IETF protocol assignments (Oracle's metadata 192.0.0.192)
  v4('192.0.2.0/24', 'reserved'), // TEST-NET-1
  v4('192.88.99.0/24', 'reserved'), // deprecated 6to4 relay anycast
  v4('192.168.0.0/16', 'private'),
  v4('198.18.0.0/15', 'reserved'), // benchmarking
  v4('198.51.100.0/24', 'reserved'), // TEST-NET-2
  v4('203.0.113.0/24', 'reserved'), // TEST-NET-3
  v4('224.0.0.0/4', 'multicast'),
  v4('240.0.0.0/4', 'reserved'), // future use and 255.255.255.255 broadcast
];

function ipv4ToInt(ip: string): number {
  return ip.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
}

function inV4(ip: number, range: V4Range): boolean {
  const size = 2 ** (32 - range.bits);
  return ip >= range.base && ip < range.base + size;
}

function classifyV4(ip: string): AddressClass {
  if (METADATA.has(ip)) return 'metadata';
  const n = ipv4ToInt(ip);
  for (const range of V4_RANGES) if (inV4(n, range)) return range.cls;
  return 'public';
}

/** Parses an IPv6 address (zone id ignored, dotted IPv4 tail allowed) into eight 16-bit groups. */
export function parseIPv6(input: string): number[] | null {
  const ip = input.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!isIPv6(ip)) return null;
  let text = ip.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const n = ipv4ToInt(dotted[1]);
    text = `${text.slice(0, dotted.index)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const part = (s: string | undefined) => (s ? s.split(':').map((h) => parseInt(h, 16)) : []);
  const left = part(head);
  const right = part(tail);
  const groups = tail === undefined ? left : [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 ? groups : null;
}

const embeddedV4 = (hi: number, lo: number) => `${hi >>> 8}.${hi & 0xff}.${lo >>> 8}.${lo & 0xff}`;

function classifyV6(groups: number[]): AddressClass {
  const canonical = groups.map((g) => g.toString(16)).join(':');
  if (METADATA.has(canonical)) return 'metadata';
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups;
  const zeroTo = (n: number) => groups.slice(0, n).every((g) => g === 0);

  if (zeroTo(8)) return 'unspecified';
  if (zeroTo(7) && g7 === 1) return 'loopback';
  // IPv4-mapped ::ffff:a.b.c.d — the kernel connects to the IPv4 address itself.
  if (zeroTo(5) && g5 === 0xffff) return classifyV4(embeddedV4(g6, g7));
  // IPv4-translated ::ffff:0:a.b.c.d (SIIT) and deprecated IPv4-compatible ::a.b.c.d.
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return classifyV4(embeddedV4(g6, g7));
  if (zeroTo(6)) return 'reserved';
  // NAT64 well-known prefix 64:ff9b::/96 reaches the embedded IPv4 address.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return classifyV4(embeddedV4(g6, g7));
  }
  // 6to4 2002:AABB:CCDD::/48 reaches the IPv4 address AA.BB.CC.DD.
  if (g0 === 0x2002) return classifyV4(embeddedV4(g1, g2));
  if ((g0 & 0xfe00) === 0xfc00) return 'unique-local'; // fc00::/7 (includes fd00:ec2::254)
  if ((g0 & 0xffc0) === 0xfe80) return 'link-local'; // fe80::/10
  if ((g0 & 0xffc0) === 0xfec0) return 'private'; // deprecated site-local fec0::/10
  if ((g0 & 0xff00) === 0xff00) return 'multicast'; // ff00::/8
  // Only global unicast 2000::/3 is reachable; within it, the non-global special blocks.
  if ((g0 & 0xe000) !== 0x2000) return 'reserved';
  if (g0 === 0x2001 && g1 < 0x0200) return 'reserved'; // 2001::/23 IETF (Teredo, benchmarking, ORCHID)
  if (g0 === 0x2001 && g1 === 0x0db8) return 'reserved'; // documentation
  if ((g0 & 0xfff0) === 0x3ff0) return 'reserved'; // 3fff::/20 documentation
  return 'public';
}

/** Classifies an IP address (IPv4, IPv6, IPv6 in brackets or with a zone id). */
export function classifyAddress(address: string): AddressClass {
  const bare = address.replace(/^\[|\]$/g, '');
  if (isIPv4(bare)) return classifyV4(bare);
  const groups = parseIPv6(bare);
  return groups ? classifyV6(groups) : 'invalid';
}

export interface AddressPolicy {
  /** Allow private, loopback, link-local and other non-public addresses (cloud metadata stays refused). */
  allowPrivate?: boolean;
}

/** True when a connection to `address` is permitted under the policy. */
export function isAllowedAddress(address: string, policy: AddressPolicy = {}): boolean {
  const cls = classifyAddress(address);
  if (cls === 'public') return true;
  if (cls === 'metadata' || cls === 'invalid') return false;
  return policy.allowPrivate === true;
}

/** True for globally reachable unicast addresses only. */
export function isPublicAddress(address: string): boolean {
  return classifyAddress(address) === 'public';
}
