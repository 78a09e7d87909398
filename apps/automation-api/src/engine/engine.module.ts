import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AutomationsModule } from '../automations/automations.module';
import { ClicksModule } from '../clicks/clicks.module';
import { ContactsModule } from '../contacts/contacts.module';
import { EventsModule } from '../events/events.module';
import { ReelsModule } from '../reels/reels.module';
import { RunsModule } from '../runs/runs.module';
import { AdvanceRun } from './advance-run';
import { AnnounceRun } from './announce-run';
import { AnsweredByOther } from './answered-by-other';
import { ApplyInput } from './apply-input';
import { ComposeMessage } from './compose-message';
import { DeliveriesRepository } from './deliveries.repository';
import { DeliveriesWorker } from './deliveries.worker';
import { EngineService, PeopleItems } from './engine.service';
import { FailRun } from './fail-run';
import { InboundRepository } from './inbound.repository';
import { InboundService } from './inbound.service';
import { InboundWorker } from './inbound.worker';
import { LoadRun } from './load-run';
import { ProcessComment } from './process-comment';
import { ProcessEcho } from './process-echo';
import { ProcessReadFallback } from './process-read-fallback';
import { ProcessSeen } from './process-seen';
import { ProcessFollowUp } from './process-follow-up';
import { OptOut } from './opt-out';
import { ProcessMessage } from './process-message';
import { ProcessPostback } from './process-postback';
import { ReadProfile } from './read-profile';
import { RecordTransition } from './record-transition';
import { ReelScheduler } from './reel.scheduler';
import { SendMessage } from './send-message';
import { PacingRepository } from './pacing.repository';
import { SendPacing } from './send-pacing';
import { SendsRepository } from './sends.repository';
import { BillingModule } from '../billing/billing.module';

/**
 * The engine (part 2): durable work queue (fed by the webhook receiver, WebhooksModule) → runs
 * (state machine, sends with intents) → customer webhooks and bus events. EngineService dispatches a
 * work item to the use case of its kind; the use cases call the services of the features they span
 * (runs, contacts, automations, events, clicks, accounts) and the engine's own repositories.
 */
@Module({
  imports: [AccountsModule, AutomationsModule, BillingModule, ClicksModule, ContactsModule, EventsModule, ReelsModule, RunsModule],
  providers: [
    InboundRepository,
    SendsRepository,
    PacingRepository,
    SendPacing,
    DeliveriesRepository,
    InboundService,
    // the work item use cases and the steps they share
    ApplyInput,
    OptOut,
    LoadRun,
    AnsweredByOther,
    ReadProfile,
    ComposeMessage,
    SendMessage,
    AnnounceRun,
    RecordTransition,
    AdvanceRun,
    ProcessComment,
    ProcessMessage,
    ProcessPostback,
    ProcessFollowUp,
    ProcessEcho,
    ProcessSeen,
    ProcessReadFallback,
    PeopleItems,
    FailRun,
    EngineService,
    InboundWorker,
    DeliveriesWorker,
    ReelScheduler,
  ],
  exports: [InboundService, SendPacing, InboundWorker, DeliveriesWorker, ReelScheduler],
})
export class EngineModule {}
