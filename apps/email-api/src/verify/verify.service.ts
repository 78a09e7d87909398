import { Injectable } from '@nestjs/common';
import { isEmail } from 'class-validator';
import { isDisposableEmailDomain } from 'disposable-email-domains-js';
import { Resolver } from 'node:dns/promises';
import { EmailApiConfig } from '../config';
import { suggestDomain } from './typo';

export interface VerifyResult {
  email: string;
  /** Format valid, the domain receives mail (MX records), and it is not disposable. */
  valid: boolean;
  formatValid: boolean;
  domain: string | null;
  isDisposable: boolean;
  hasMxRecords: boolean;
  mxRecords: Array<{ exchange: string; priority: number }>;
  /** The address with a likely intended domain (`gmial.com` → `gmail.com`), else null. */
  suggestedEmail: string | null;
  reasons: string[];
}

type MxOutcome = { records: Array<{ exchange: string; priority: number }>; reason?: string };

/** POST /v1/verify: format, MX records (through DNS_SERVERS or the system resolver), disposable domains, typos. */
@Injectable()
export class VerifyService {
  private readonly servers: string[] | null;

  constructor(private readonly config: EmailApiConfig) {
    this.servers = config.DNS_SERVERS ? config.DNS_SERVERS.split(',').map((s) => s.trim()).filter(Boolean) : null;
  }

  async verify(input: string): Promise<VerifyResult> {
    const email = input.trim().toLowerCase();
    const reasons: string[] = [];
    const at = email.lastIndexOf('@');
    const formatValid = email.length <= 254 && isEmail(email, { allow_utf8_local_part: true, require_tld: true });
    const domain = at > 0 ? email.slice(at + 1) : null;
    if (!formatValid) reasons.push('Invalid email format');
    const isDisposable = domain !== null && disposable(domain);
    if (isDisposable) reasons.push('Disposable email domain');
    const suggested = domain ? suggestDomain(domain) : null;
    if (suggested) reasons.push(`Possible typo detected: did you mean ${suggested}?`);
    let mx: MxOutcome = { records: [] };
    if (formatValid && domain) {
      mx = await this.lookupMx(domain);
      if (mx.reason) reasons.push(mx.reason);
    }
    const hasMxRecords = mx.records.length > 0;
    return {
      email,
      valid: formatValid && hasMxRecords && !isDisposable,
      formatValid,
      domain,
      isDisposable,
      hasMxRecords,
      mxRecords: mx.records,
      suggestedEmail: suggested ? `${email.slice(0, at)}@${suggested}` : null,
      reasons,
    };
  }

  private async lookupMx(domain: string): Promise<MxOutcome> {
    const resolver = new Resolver({ timeout: this.config.DNS_TIMEOUT_MS, tries: 2 });
    if (this.servers) resolver.setServers(this.servers);
    try {
      // The two fields of the answer, whatever else the runtime's resolver adds (Node 24 adds `type`).
      const records = (await resolver.resolveMx(domain))
        .map(({ exchange, priority }) => ({ exchange, priority }))
        .sort((a, b) => a.priority - b.priority || a.exchange.localeCompare(b.exchange));
      // RFC 7505 null MX: the domain states it accepts no mail.
      if (records.length === 1 && (records[0].exchange === '' || records[0].exchange === '.')) return { records: [], reason: 'Domain does not accept email (null MX record)' };
      if (records.length === 0) return { records: [], reason: 'Domain does not exist or has no MX records' };
      return { records };
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'ENOTFOUND' || code === 'ENODATA' || code === 'NXDOMAIN') return { records: [], reason: 'Domain does not exist or has no MX records' };
      return { records: [], reason: `MX lookup failed (${code ?? 'error'}); the domain could not be checked` };
    } finally {
      resolver.cancel();
    }
  }
}

/** The domain or one of its parent domains is on the list (`x.mailinator.com` counts too). */
function disposable(domain: string): boolean {
  const labels = domain.split('.');
  for (let i = 0; i < labels.length - 1; i++) if (isDisposableEmailDomain(labels.slice(i).join('.'))) return true;
  return false;
}
