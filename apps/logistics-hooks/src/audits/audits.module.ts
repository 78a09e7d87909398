import { Module } from '@nestjs/common';
import { AuditWebhookConsumer } from './audit-webhook.consumer';
import { AuditsController } from './audits.controller';
import { AuditsRepository } from './audits.repository';
import { AuditsService } from './audits.service';

/** `POST /an-audit`: arrival-notice audits and the low-score notification webhook. */
@Module({
  controllers: [AuditsController],
  providers: [AuditsService, AuditsRepository, AuditWebhookConsumer],
})
export class AuditsModule {}
