import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { EngineModule } from '../engine/engine.module';
import { InboundWriter } from './inbound-writer';
import { WebhookAccounts } from './webhook-accounts';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

/** The platform's webhook receiver: verification handshake and deliveries stored as the engine's work items. */
@Module({
  imports: [AccountsModule, EngineModule],
  controllers: [WebhooksController],
  providers: [WebhookAccounts, InboundWriter, WebhooksService],
  exports: [WebhooksService],
})
export class WebhooksModule {}
