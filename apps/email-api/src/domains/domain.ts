/** A sending domain as the API returns it. */
export interface DnsRecord {
  type: 'TXT' | 'MX' | 'CNAME';
  /** Full host name. */
  name: string;
  value: string;
  priority?: number;
  /** What the record is for. */
  purpose: 'DKIM' | 'SPF' | 'RETURN_PATH' | 'DMARC' | 'INBOUND';
  /** Verification needs it (DMARC is advice). */
  required: boolean;
}

export interface RecordCheck {
  purpose: DnsRecord['purpose'];
  type: DnsRecord['type'];
  name: string;
  ok: boolean;
  /** What was found, or why the lookup failed. */
  detail: string;
}

/** pending → verified (all required records found); verified ⇄ degraded (a later check found a record gone, or back). */
export type DomainStatus = 'pending' | 'verified' | 'degraded';

export interface Domain {
  id: string;
  domain: string;
  projectId: string;
  status: DomainStatus;
  records: DnsRecord[];
  checks: RecordCheck[];
  lastCheckedAt: Date | null;
  verifiedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface DomainRow {
  id: string;
  project_id: string;
  domain: string;
  status: DomainStatus;
  dkim_selector: string;
  dkim_public_key: string;
  dkim_private_key: string;
  checks: RecordCheck[];
  last_checked_at: Date | null;
  verified_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const RETURN_PATH_LABEL = 'bounce';

/**
 * The DNS records a domain publishes: DKIM, SPF, the return path (MX + SPF TXT), DMARC advice, and
 * the optional MX of the domain itself for receiving its mail here (inbound mail; not required:
 * publishing it sends all of the domain's mail to this service, so only for a domain or subdomain
 * whose mail should land here).
 */
export function dnsRecords(row: Pick<DomainRow, 'domain' | 'dkim_selector' | 'dkim_public_key'>, spfInclude: string, returnPathMx: string): DnsRecord[] {
  const spf = `v=spf1 include:${spfInclude} ~all`;
  const returnPath = `${RETURN_PATH_LABEL}.${row.domain}`;
  return [
    { type: 'TXT', name: `${row.dkim_selector}._domainkey.${row.domain}`, value: `v=DKIM1; k=rsa; p=${row.dkim_public_key}`, purpose: 'DKIM', required: true },
    { type: 'TXT', name: row.domain, value: spf, purpose: 'SPF', required: true },
    { type: 'MX', name: returnPath, value: returnPathMx, priority: 10, purpose: 'RETURN_PATH', required: true },
    { type: 'TXT', name: returnPath, value: spf, purpose: 'RETURN_PATH', required: true },
    { type: 'TXT', name: `_dmarc.${row.domain}`, value: `v=DMARC1; p=none; rua=mailto:dmarc@${row.domain}`, purpose: 'DMARC', required: false },
    { type: 'MX', name: row.domain, value: returnPathMx, priority: 10, purpose: 'INBOUND', required: false },
  ];
}

export function toDomain(row: DomainRow, spfInclude: string, returnPathMx: string): Domain {
  return {
    id: row.id,
    domain: row.domain,
    projectId: row.project_id,
    status: row.status,
    records: dnsRecords(row, spfInclude, returnPathMx),
    checks: row.checks ?? [],
    lastCheckedAt: row.last_checked_at,
    verifiedAt: row.verified_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** `p=` of a DKIM TXT value, whitespace removed. */
export function dkimKeyOf(txt: string): string | null {
  const m = /(?:^|;)\s*p\s*=\s*([^;]*)/.exec(txt);
  return m ? m[1].replace(/\s+/g, '') : null;
}

/** Whether an SPF TXT record includes the host. */
export function spfIncludes(txt: string, host: string): boolean {
  if (!/^v=spf1(\s|$)/i.test(txt.trim())) return false;
  return txt.split(/\s+/).some((term) => term.replace(/^[+~?-]/, '').toLowerCase() === `include:${host.toLowerCase()}`);
}

export function domainOfEmail(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}
