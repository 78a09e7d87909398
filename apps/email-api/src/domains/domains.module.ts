import { Module } from '@nestjs/common';
import { DnsChecker } from './dns-checker';
import { DomainUsers } from './domain-users';
import { DomainVerificationWorker } from './domain-verification.worker';
import { DomainsController } from './domains.controller';
import { DomainsRepository } from './domains.repository';
import { DomainsService } from './domains.service';
import { KeyVault } from './key-vault';

@Module({
  controllers: [DomainsController],
  providers: [DomainsRepository, DomainsService, DnsChecker, KeyVault, DomainVerificationWorker, DomainUsers],
  exports: [DomainsService, DomainUsers],
})
export class DomainsModule {}
