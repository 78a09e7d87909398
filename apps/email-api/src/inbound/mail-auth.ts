import { Injectable } from '@nestjs/common';
import { Resolver } from 'node:dns/promises';
import { EmailApiConfig } from '../config';

/** A DNS lookup as mailauth makes them (`resolver(name, 'TXT')` answers string[][], like node:dns). */
export type DnsResolve = (name: string, rrtype: string) => Promise<unknown>;

/** SPF, DKIM and DMARC of a received message, as shown on it. */
export interface AuthResults {
  spf: { result: string; domain: string | null };
  dkim: Array<{ result: string; domain: string | null; selector: string | null; aligned: boolean }>;
  dmarc: { result: string; domain: string | null; policy: string | null };
  /** The Authentication-Results header field mailauth would add (RFC 8601). */
  header: string;
}

/**
 * Lookups through DNS_SERVERS (or the system's resolvers), each bounded by DNS_TIMEOUT_MS: the
 * resolver mailauth gets. Errors keep node:dns's codes (ENOTFOUND, ENODATA), which mailauth reads as
 * "no record".
 */
export function dnsResolver(servers: string[] | null, timeoutMs: number): DnsResolve {
  return async (name, rrtype) => {
    const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
    if (servers) resolver.setServers(servers);
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        resolver.resolve(name, rrtype as 'TXT'),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            resolver.cancel();
            reject(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEOUT' }));
          }, timeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  };
}

type Status = { result?: string; policy?: Record<string, unknown> } | undefined;

/**
 * Checks SPF (the client's IP against the MAIL FROM domain, or the HELO name for the null sender),
 * every DKIM signature and DMARC of received mail with `mailauth`, over the DNS resolver it is given
 * (DNS_SERVERS by default; tests use the fake DNS server). A check that cannot run (DNS down) reads
 * `temperror`; it never refuses the mail.
 */
@Injectable()
export class MailAuthChecker {
  private readonly resolve: DnsResolve;
  private readonly mta: string;

  constructor(config: EmailApiConfig) {
    const servers = config.DNS_SERVERS ? config.DNS_SERVERS.split(',').map((s) => s.trim()).filter(Boolean) : null;
    this.resolve = dnsResolver(servers, config.DNS_TIMEOUT_MS);
    this.mta = config.INBOUND_SMTP_HOSTNAME ?? config.RETURN_PATH_MX;
  }

  async check(raw: Buffer, envelope: { ip: string; helo: string; sender: string }, resolve: DnsResolve = this.resolve): Promise<AuthResults> {
    try {
      // Loaded with the first message: mailauth and its public-suffix list take a quarter of a second to load, which no start needs.
      const { authenticate } = await import('mailauth');
      const res = await authenticate(raw, {
        ip: envelope.ip.replace(/^::ffff:/, ''),
        helo: envelope.helo,
        sender: envelope.sender || undefined,
        mta: this.mta,
        resolver: resolve as never,
        disableArc: true,
        disableBimi: true,
      });
      const r = res as unknown as {
        spf?: { status?: Status; domain?: string } | false;
        dkim?: { results?: Array<{ status?: Status & { aligned?: string | false }; signingDomain?: string; selector?: string }> };
        dmarc?: { status?: Status; domain?: string; p?: string } | false;
        headers?: string;
      };
      const spf = r.spf || undefined;
      const dmarc = r.dmarc || undefined;
      return {
        spf: { result: spf?.status?.result ?? 'none', domain: spf?.domain ?? null },
        dkim: (r.dkim?.results ?? []).map((d) => ({ result: d.status?.result ?? 'none', domain: d.signingDomain ?? null, selector: d.selector ?? null, aligned: Boolean(d.status?.aligned) })),
        dmarc: { result: dmarc?.status?.result ?? 'none', domain: dmarc?.domain ?? null, policy: dmarc?.p ?? null },
        header: (r.headers ?? '').trim(),
      };
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      return { spf: { result: 'temperror', domain: null }, dkim: [], dmarc: { result: 'temperror', domain: null, policy: null }, header: `temperror: ${reason}` };
    }
  }
}
