import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { EventsModule } from '../events/events.module';
import { WebhooksController } from '../webhooks/webhooks.controller';
import { InboundWriter } from '../webhooks/inbound-writer';
import { UnreadableDeliveriesRepository } from '../webhooks/unreadable-deliveries.repository';
import { WebhookAccounts } from '../webhooks/webhook-accounts';
import { WebhooksService } from '../webhooks/webhooks.service';
import { DeliveriesRepository } from './deliveries.repository';
import { DeliveriesWorker } from './deliveries.worker';
import { EngineRepository } from './engine.repository';
import { EngineService } from './engine.service';
import { InboundWorker } from './inbound.worker';
import { ReelScheduler } from './reel.scheduler';

/**
 * The engine (part 2): webhook receiver → durable work queue → runs (state machine, sends with
 * intents) → customer webhooks and bus events.
 */
@Module({
  imports: [AccountsModule, EventsModule],
  controllers: [WebhooksController],
  providers: [EngineRepository, DeliveriesRepository, EngineService, InboundWorker, DeliveriesWorker, ReelScheduler, WebhookAccounts, InboundWriter, UnreadableDeliveriesRepository, WebhooksService],
  exports: [EngineRepository, InboundWorker, DeliveriesWorker, ReelScheduler, WebhooksService],
})
export class EngineModule {}
