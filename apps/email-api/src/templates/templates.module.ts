import { Module } from '@nestjs/common';
import { UsageModule } from '../usage/usage.module';
import { DomainsModule } from '../domains/domains.module';
import { TemplateUsers } from './template-users';
import { TemplatesController } from './templates.controller';
import { TemplatesRepository } from './templates.repository';
import { TemplatesService } from './templates.service';

@Module({
  imports: [DomainsModule, UsageModule],
  controllers: [TemplatesController],
  providers: [TemplatesRepository, TemplatesService, TemplateUsers],
  exports: [TemplatesService, TemplateUsers],
})
export class TemplatesModule {}
