import { Injectable } from '@nestjs/common';
import { Resolver } from 'node:dns/promises';
import { EmailApiConfig } from '../config';

export type Lookup<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * DNS lookups of domain verification through DNS_SERVERS (`ip[:port]`, comma-separated; unset: the
 * system's resolvers), each bounded by DNS_TIMEOUT_MS whatever the resolver does (one try, then a
 * timer that cancels it), so a verification answers in a few seconds even when no server answers.
 */
@Injectable()
export class DnsChecker {
  private readonly servers: string[] | null;
  private readonly timeoutMs: number;

  constructor(config: EmailApiConfig) {
    this.servers = config.DNS_SERVERS ? config.DNS_SERVERS.split(',').map((s) => s.trim()).filter(Boolean) : null;
    this.timeoutMs = config.DNS_TIMEOUT_MS;
  }

  /** TXT records of a name, each record's strings joined. */
  txt(name: string): Promise<Lookup<string[]>> {
    return this.bounded((r) => r.resolveTxt(name).then((records) => records.map((chunks) => chunks.join(''))));
  }

  mx(name: string): Promise<Lookup<Array<{ exchange: string; priority: number }>>> {
    return this.bounded((r) => r.resolveMx(name).then((records) => records.map(({ exchange, priority }) => ({ exchange, priority }))));
  }

  private async bounded<T>(fn: (r: Resolver) => Promise<T>): Promise<Lookup<T>> {
    const resolver = new Resolver({ timeout: this.timeoutMs, tries: 1 });
    if (this.servers) resolver.setServers(this.servers);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        resolver.cancel();
        reject(Object.assign(new Error(`no answer within ${this.timeoutMs} ms`), { code: 'ETIMEOUT' }));
      }, this.timeoutMs);
    });
    try {
      return { ok: true, value: await Promise.race([fn(resolver), deadline]) };
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      if (e.code === 'ENOTFOUND' || e.code === 'ENODATA') return { ok: true, value: [] as unknown as T };
      return { ok: false, error: e.code === 'ETIMEOUT' || e.code === 'ECANCELLED' ? `no answer within ${this.timeoutMs} ms` : `${e.code ?? 'error'}: ${e.message}` };
    } finally {
      clearTimeout(timer);
    }
  }
}
