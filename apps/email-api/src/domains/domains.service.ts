import { Injectable, Logger } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { createPrivateKey, generateKeyPair, randomBytes, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { EmailApiConfig } from '../config';
import { DnsChecker } from './dns-checker';
import { dkimKeyOf, dnsRecords, domainOfEmail, spfIncludes, toDomain, type Domain, type DomainRow, type RecordCheck } from './domain';
import { DomainsRepository } from './domains.repository';
import { KeyVault } from './key-vault';
import { DomainUsers } from './domain-users';

const generateRsaKeyPair = promisify(generateKeyPair);

export const domainNotFound = () => new ApiError(404, 'DOMAIN_NOT_FOUND', 'Domain not found', { suggestion: 'List the project\'s domains with GET /domains/project/{projectId}.' });

/** A verified domain's DKIM key, as the message builder signs with it (createMessageBuilder). */
export interface DkimKey {
  domainName: string;
  keySelector: string;
  /** Parsed once (signing with a PEM string would parse it for every mail). */
  privateKey: KeyObject;
}

@Injectable()
export class DomainsService {
  private readonly logger = new Logger('DomainsService');
  private readonly dkimCache = new Map<string, { key: DkimKey | null; until: number }>();

  constructor(
    private readonly transactions: Transactions,
    private readonly config: EmailApiConfig,
    private readonly domains: DomainsRepository,
    private readonly dns: DnsChecker,
    private readonly vault: KeyVault,
    private readonly users: DomainUsers,
  ) {}

  view(row: DomainRow): Domain {
    return toDomain(row, this.config.SPF_INCLUDE, this.config.RETURN_PATH_MX);
  }

  async add(projectId: string, name: string): Promise<Domain> {
    const domain = name.trim().toLowerCase().replace(/\.$/, '');
    // On libuv's thread pool: an RSA-2048 key takes 0.1 to 1 s of CPU, which the synchronous call
    // took from every other request of the process (opens, clicks, sends) while it ran.
    const { publicKey, privateKey } = await generateRsaKeyPair('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'der' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const selector = `pm${randomBytes(4).toString('hex')}`;
    const row = await this.domains.insert(projectId, domain, selector, publicKey.toString('base64'), this.vault.encrypt(privateKey));
    if (!row) throw new ApiError(409, 'DOMAIN_EXISTS', `The project already has the domain ${domain}`, { suggestion: 'Verify the existing domain with GET /domains/{id}/verify.' });
    return this.view(row);
  }

  async list(projectId: string): Promise<Domain[]> {
    return (await this.domains.listByProject(projectId)).map((r) => this.view(r));
  }

  async get(projectId: string, id: string): Promise<DomainRow> {
    const row = await this.domains.findById(projectId, id);
    if (!row) throw domainNotFound();
    return row;
  }

  /** GET /domains/:id/verify: checks now (every lookup bounded by DNS_TIMEOUT_MS). */
  async verify(projectId: string, id: string): Promise<Domain> {
    const row = await this.get(projectId, id);
    return this.view(await this.check(row));
  }

  /** Looks up every required record; all present with their values: verified. */
  async check(row: DomainRow): Promise<DomainRow> {
    const records = dnsRecords(row, this.config.SPF_INCLUDE, this.config.RETURN_PATH_MX).filter((r) => r.required);
    const checks: RecordCheck[] = await Promise.all(
      records.map(async (r): Promise<RecordCheck> => {
        const base = { purpose: r.purpose, type: r.type, name: r.name };
        if (r.type === 'MX') {
          const found = await this.dns.mx(r.name);
          if (!found.ok) return { ...base, ok: false, detail: found.error };
          const hosts = found.value.map((m) => m.exchange.toLowerCase().replace(/\.$/, ''));
          const ok = hosts.includes(r.value.toLowerCase());
          return { ...base, ok, detail: hosts.length ? `MX ${hosts.join(', ')}` : 'no MX record' };
        }
        const found = await this.dns.txt(r.name);
        if (!found.ok) return { ...base, ok: false, detail: found.error };
        const ok =
          r.purpose === 'DKIM'
            ? found.value.some((txt) => dkimKeyOf(txt) === row.dkim_public_key)
            : found.value.some((txt) => spfIncludes(txt, this.config.SPF_INCLUDE));
        const want = r.purpose === 'DKIM' ? 'the DKIM key' : `an SPF record with include:${this.config.SPF_INCLUDE}`;
        return { ...base, ok, detail: ok ? 'found' : found.value.length ? `TXT present but without ${want}` : 'no TXT record' };
      }),
    );
    const verified = checks.every((c) => c.ok);
    const saved = await this.domains.saveCheck(row.id, checks, verified, this.config.DOMAIN_CHECK_SECONDS, this.config.DOMAIN_RECHECK_SECONDS);
    if (verified && row.status !== 'verified') this.logger.log(`domain ${row.domain} (${row.id}) verified`);
    if (!verified && row.status === 'verified') {
      this.logger.warn(`domain ${row.domain} (${row.id}) degraded: ${checks.filter((c) => !c.ok).map((c) => `${c.purpose} ${c.type} ${c.name}: ${c.detail}`).join('; ')}`);
    }
    this.dkimCache.clear();
    return saved ?? row;
  }

  /** 409 while a template or an unfinished campaign uses it. */
  async remove(projectId: string, id: string): Promise<void> {
    await this.transactions.transaction(async () => {
      const row = await this.domains.lock(projectId, id);
      if (!row) throw domainNotFound();
      const usage = await this.domains.usage(id);
      if (usage.templates || usage.campaigns) {
        const steps = await this.users.workflowSteps(projectId, id);
        const inWorkflows = steps ? ` (sent by ${steps} workflow step(s))` : '';
        throw new ApiError(409, 'DOMAIN_IN_USE', `The domain is used by ${usage.templates} template(s)${inWorkflows} and ${usage.campaigns} draft, scheduled or sending campaign(s)`, {
          suggestion: `Change the sender of those templates and campaigns (or delete them) first${steps ? '; a template sent by a workflow step is deleted once the step uses another template (GET /templates/{id}/usage)' : ''}.`,
        });
      }
      await this.domains.delete(projectId, id);
    });
    this.dkimCache.clear();
  }

  /** The projects whose verified (or degraded) domain this is: inbound mail for it goes to them. */
  projectsReceivingMailFor(domain: string): Promise<string[]> {
    return this.domains.projectsReceiving(domain.toLowerCase());
  }

  /**
   * The verified domain of a sender address, locked against deletion for the open transaction;
   * else 422 `VALIDATION_ERROR` on `field`.
   */
  async requireVerifiedSender(projectId: string, from: string, field = 'from'): Promise<DomainRow> {
    const domain = domainOfEmail(from);
    const row = await this.domains.lockVerified(projectId, domain);
    if (!row) {
      throw new ApiError(422, 'VALIDATION_ERROR', `${field} must be on a verified domain of the project (${domain} is not)`, {
        errors: [{ field, message: `${domain} is not a verified domain of this project`, code: 'domain_not_verified' }],
        suggestion: 'Add the domain with POST /domains, publish its DNS records and verify it with GET /domains/{id}/verify.',
      });
    }
    return row;
  }

  /**
   * /v1/send's check of an explicit sender (or a template's): its domain must be a verified domain
   * of the project; else 403 `SENDER_DOMAIN_NOT_VERIFIED`, or `SENDER_DOMAIN_DEGRADED` when the
   * domain was verified and a later DNS check found its records gone.
   */
  async assertSendableSender(projectId: string, from: string): Promise<void> {
    const domain = domainOfEmail(from);
    const row = await this.domains.findByName(projectId, domain);
    if (row?.status === 'verified') return;
    if (row?.status === 'degraded') {
      const missing = row.checks.filter((c) => !c.ok).map((c) => `${c.purpose} ${c.type} ${c.name}`);
      throw new ApiError(403, 'SENDER_DOMAIN_DEGRADED', `The sender domain ${domain} is degraded: its DNS records are no longer published (${missing.join(', ') || 'see the domain\'s checks'})`, {
        suggestion: `Publish the records again (GET /domains/project/${projectId} lists them) and re-check with GET /domains/${row.id}/verify.`,
      });
    }
    throw new ApiError(403, 'SENDER_DOMAIN_NOT_VERIFIED', `from must be on a verified domain of the project (${domain} is ${row ? 'pending verification' : 'not a domain of this project'})`, {
      suggestion: row
        ? `Publish the domain's DNS records and verify it with GET /domains/${row.id}/verify, or leave out "from" to send from the platform's default sender.`
        : 'Add the domain with POST /domains, publish its DNS records and verify it, or leave out "from" to send from the platform\'s default sender.',
    });
  }

  /** The DKIM key of the verified domain of a sender (cached one minute), or null. */
  async dkimFor(projectId: string | null, from: string): Promise<DkimKey | null> {
    if (!projectId) return null;
    const domain = domainOfEmail(from);
    const cacheKey = `${projectId}:${domain}`;
    const hit = this.dkimCache.get(cacheKey);
    if (hit && hit.until > Date.now()) return hit.key;
    const row = await this.domains.findVerified(projectId, domain);
    let key: DkimKey | null = null;
    if (row) {
      try {
        key = { domainName: row.domain, keySelector: row.dkim_selector, privateKey: createPrivateKey(this.vault.decrypt(row.dkim_private_key)) };
      } catch (err) {
        this.logger.error(`the DKIM key of ${row.domain} cannot be decrypted (DKIM_KEY_SECRET changed?): ${(err as Error).message}; sending unsigned`);
      }
    }
    this.dkimCache.set(cacheKey, { key, until: Date.now() + 60_000 });
    return key;
  }
}
