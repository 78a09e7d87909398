import { Injectable, Logger } from '@nestjs/common';
import { PollingWorker } from '@platform/database';
import { EmailApiConfig } from '../config';
import { DomainsRepository } from './domains.repository';
import { DomainsService } from './domains.service';

/**
 * The background DNS check of pending domains, every DOMAIN_CHECK_SECONDS (5 minutes) per domain.
 * Every replica runs it; `claimDue` (FOR UPDATE SKIP LOCKED with a lease) gives each due domain to
 * one of them, and the check moves its next time forward.
 */
@Injectable()
export class DomainVerificationWorker extends PollingWorker {
  protected readonly logger = new Logger('DomainVerificationWorker');

  constructor(
    private readonly domains: DomainsRepository,
    private readonly service: DomainsService,
    config: EmailApiConfig,
  ) {
    super(Math.max(config.WORKER_POLL_MS, 1000));
  }

  protected async tick(): Promise<number> {
    const due = await this.domains.claimDue(20, 60);
    await Promise.all(due.map((row) => this.service.check(row).catch((err) => this.logger.warn(`check of ${row.domain} failed: ${(err as Error).message}`))));
    return due.length;
  }
}
