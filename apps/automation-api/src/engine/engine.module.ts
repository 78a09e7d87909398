import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AutomationsModule } from '../automations/automations.module';
import { ClicksModule } from '../clicks/clicks.module';
import { ContactsModule } from '../contacts/contacts.module';
import { EventsModule } from '../events/events.module';
import { RunsModule } from '../runs/runs.module';
import { WebhooksController } from '../webhooks/webhooks.controller';
import { InboundWriter } from '../webhooks/inbound-writer';
import { WebhookAccounts } from '../webhooks/webhook-accounts';
import { WebhooksService } from '../webhooks/webhooks.service';
import { DeliveriesRepository } from './deliveries.repository';
import { DeliveriesWorker } from './deliveries.worker';
import { EngineService } from './engine.service';
import { InboundRepository } from './inbound.repository';
import { InboundWorker } from './inbound.worker';
import { ReelScheduler } from './reel.scheduler';
import { ReelsRepository } from '../reels/reels.repository';
import { SendsRepository } from './sends.repository';

/**
 * The engine (part 2): webhook receiver → durable work queue → runs (state machine, sends with
 * intents) → customer webhooks and bus events.
 */
@Module({
  imports: [AccountsModule, AutomationsModule, ClicksModule, ContactsModule, EventsModule, RunsModule],
  controllers: [WebhooksController],
  providers: [
    InboundRepository,
    SendsRepository,
    DeliveriesRepository,
    EngineService,
    InboundWorker,
    DeliveriesWorker,
    ReelScheduler,
    // Read by the scheduler: automations bound to a scheduled reel are not matched by caption.
    ReelsRepository,
    WebhookAccounts,
    InboundWriter,
    WebhooksService,
  ],
  exports: [InboundWorker, DeliveriesWorker, ReelScheduler, WebhooksService],
})
export class EngineModule {}
