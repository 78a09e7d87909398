import { Module } from '@nestjs/common';
import { ContactsModule } from '../contacts/contacts.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { UsageModule } from '../usage/usage.module';
import { EventsController } from './events.controller';
import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';
import { TrackController } from './track.controller';
import { TrackRepository } from './track.repository';
import { TrackService } from './track.service';

@Module({
  imports: [ContactsModule, IdempotencyModule, UsageModule],
  controllers: [TrackController, EventsController],
  providers: [EventsRepository, EventsService, TrackRepository, TrackService],
  exports: [TrackService],
})
export class EventsModule {}
