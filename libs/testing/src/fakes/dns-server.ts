/**
 * A fake DNS server for tests: `node:dgram` on 127.0.0.1 (port 0) answering A, AAAA, MX, TXT and
 * CNAME questions from a table (RFC 1035 wire format, enough for node's `dns.Resolver`):
 * a name in the table answers NOERROR with its records of the asked type (none: NODATA), a name
 * not in the table NXDOMAIN, a name listed in `servfail` SERVFAIL.
 *
 * ```ts
 * const dns = await startFakeDnsServer({
 *   'example.com': { MX: [{ priority: 10, exchange: 'mx.example.com' }], A: ['192.0.2.1'], TXT: ['v=spf1 -all'] },
 * });
 * const resolver = new Resolver(); resolver.setServers([dns.address]);   // '127.0.0.1:<port>'
 * dns.set('other.test', { MX: [] });   dns.servfail('broken.test');   dns.silence('slow.test');   // never answered
 * dns.queries;                          // [{ name, type }]
 * await dns.close();
 * ```
 */
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';

export interface DnsRecords {
  A?: string[];
  AAAA?: string[];
  MX?: Array<{ priority: number; exchange: string }>;
  TXT?: Array<string | string[]>;
  CNAME?: string;
  /** Seconds; default 60. */
  ttl?: number;
}

export type DnsTable = Record<string, DnsRecords>;

export interface FakeDnsServer {
  /** `127.0.0.1:<port>`: pass to `Resolver#setServers` or a DNS_SERVERS setting. */
  address: string;
  host: string;
  port: number;
  /** Questions received, in order (type as a name: A, MX, …). */
  readonly queries: Array<{ name: string; type: string }>;
  /** Adds or replaces the records of a name. */
  set(name: string, records: DnsRecords): void;
  /** Removes a name (it then answers NXDOMAIN). */
  remove(name: string): void;
  /** The name answers SERVFAIL. */
  servfail(name: string): void;
  /** Questions about the name get no answer at all (a resolver that does not answer); `'*'`: every name. */
  silence(name: string): void;
  close(): Promise<void>;
}

const TYPES: Record<number, string> = { 1: 'A', 5: 'CNAME', 15: 'MX', 16: 'TXT', 28: 'AAAA', 255: 'ANY' };
const CODES: Record<string, number> = { A: 1, CNAME: 5, MX: 15, TXT: 16, AAAA: 28 };

function encodeName(name: string): Buffer {
  const parts = name.replace(/\.$/, '').split('.').filter(Boolean);
  const bufs = parts.map((p) => {
    const label = Buffer.from(p, 'utf8');
    return Buffer.concat([Buffer.from([label.length]), label]);
  });
  return Buffer.concat([...bufs, Buffer.from([0])]);
}

/** Reads a (possibly compressed) name at `offset`; returns it and the offset after it in the original position. */
function readName(msg: Buffer, offset: number): { name: string; next: number } {
  const labels: string[] = [];
  let pos = offset;
  let next = -1;
  for (let jumps = 0; jumps < 50; jumps++) {
    const len = msg[pos];
    if (len === undefined) throw new Error('truncated name');
    if ((len & 0xc0) === 0xc0) {
      if (next < 0) next = pos + 2;
      pos = ((len & 0x3f) << 8) | msg[pos + 1];
      continue;
    }
    if (len === 0) {
      if (next < 0) next = pos + 1;
      return { name: labels.join('.'), next };
    }
    labels.push(msg.subarray(pos + 1, pos + 1 + len).toString('utf8'));
    pos += 1 + len;
  }
  throw new Error('name compression loop');
}

function ipv6Bytes(ip: string): Buffer {
  const [head, tail] = ip.includes('::') ? ip.split('::') : [ip, undefined];
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g || '0', 16), i * 2));
  return out;
}

function rdata(type: string, value: unknown): Buffer {
  switch (type) {
    case 'A':
      return Buffer.from(String(value).split('.').map(Number));
    case 'AAAA':
      return ipv6Bytes(String(value));
    case 'CNAME':
      return encodeName(String(value));
    case 'MX': {
      const mx = value as { priority: number; exchange: string };
      const pref = Buffer.alloc(2);
      pref.writeUInt16BE(mx.priority);
      return Buffer.concat([pref, encodeName(mx.exchange)]);
    }
    case 'TXT': {
      const chunks = Array.isArray(value) ? (value as string[]) : [String(value)];
      return Buffer.concat(
        chunks.flatMap((c) => {
          const bytes = Buffer.from(c, 'utf8');
          const parts: Buffer[] = [];
          for (let i = 0; i < bytes.length || i === 0; i += 255) {
            const piece = bytes.subarray(i, i + 255);
            parts.push(Buffer.from([piece.length]), piece);
            if (bytes.length === 0) break;
          }
          return parts;
        }),
      );
    }
    default:
      return Buffer.alloc(0);
  }
}

function answersFor(records: DnsRecords, type: string): Array<{ type: string; value: unknown }> {
  const types = type === 'ANY' ? ['A', 'AAAA', 'MX', 'TXT', 'CNAME'] : [type];
  const out: Array<{ type: string; value: unknown }> = [];
  for (const t of types) {
    if (t === 'CNAME') {
      if (records.CNAME) out.push({ type: 'CNAME', value: records.CNAME });
      continue;
    }
    for (const v of (records[t as 'A' | 'AAAA' | 'MX' | 'TXT'] ?? []) as unknown[]) out.push({ type: t, value: v });
  }
  return out;
}

export async function startFakeDnsServer(initial: DnsTable = {}): Promise<FakeDnsServer> {
  const table = new Map<string, DnsRecords>(Object.entries(initial).map(([k, v]) => [k.toLowerCase().replace(/\.$/, ''), v]));
  const failing = new Set<string>();
  const silent = new Set<string>();
  const queries: Array<{ name: string; type: string }> = [];
  const socket: Socket = createSocket('udp4');

  socket.on('message', (msg: Buffer, from: RemoteInfo) => {
    let response: Buffer | null;
    try {
      response = answer(msg);
    } catch {
      return; // not a DNS query we understand: drop it, as servers do
    }
    if (response) socket.send(response, from.port, from.address);
  });

  function answer(msg: Buffer): Buffer | null {
    if (msg.length < 12) throw new Error('short');
    const id = msg.readUInt16BE(0);
    const flags = msg.readUInt16BE(2);
    const qdcount = msg.readUInt16BE(4);
    if (qdcount < 1) throw new Error('no question');
    const { name, next } = readName(msg, 12);
    const qtype = msg.readUInt16BE(next);
    const question = msg.subarray(12, next + 4);
    const key = name.toLowerCase();
    const type = TYPES[qtype] ?? `TYPE${qtype}`;
    queries.push({ name: key, type });
    if (silent.has('*') || silent.has(key)) return null;
    let rcode = 0;
    let answers: Array<{ type: string; value: unknown }> = [];
    let ttl = 60;
    if (failing.has(key)) rcode = 2;
    else {
      const records = table.get(key);
      if (!records) rcode = 3;
      else {
        ttl = records.ttl ?? 60;
        answers = answersFor(records, type);
      }
    }
    const header = Buffer.alloc(12);
    header.writeUInt16BE(id, 0);
    // QR, opcode copied, AA, RD copied, RA, rcode.
    header.writeUInt16BE(0x8000 | (flags & 0x7800) | 0x0400 | (flags & 0x0100) | 0x0080 | rcode, 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    header.writeUInt16BE(0, 8);
    header.writeUInt16BE(0, 10);
    const records = answers.map((a) => {
      const data = rdata(a.type, a.value);
      const fixed = Buffer.alloc(12);
      fixed.writeUInt16BE(0xc00c, 0); // pointer to the question name
      fixed.writeUInt16BE(CODES[a.type], 2);
      fixed.writeUInt16BE(1, 4); // IN
      fixed.writeUInt32BE(ttl, 6);
      fixed.writeUInt16BE(data.length, 10);
      return Buffer.concat([fixed, data]);
    });
    return Buffer.concat([header, question, ...records]);
  }

  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => resolve());
  });
  const port = socket.address().port;

  return {
    address: `127.0.0.1:${port}`,
    host: '127.0.0.1',
    port,
    queries,
    set(name, records) {
      const key = name.toLowerCase().replace(/\.$/, '');
      failing.delete(key);
      silent.delete(key);
      table.set(key, records);
    },
    remove(name) {
      table.delete(name.toLowerCase().replace(/\.$/, ''));
    },
    silence(name) {
      silent.add(name === '*' ? '*' : name.toLowerCase().replace(/\.$/, ''));
    },
    servfail(name) {
      failing.add(name.toLowerCase().replace(/\.$/, ''));
    },
    close() {
      return new Promise<void>((resolve) => socket.close(() => resolve()));
    },
  };
}
