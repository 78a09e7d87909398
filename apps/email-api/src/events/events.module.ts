import { Module } from '@nestjs/common';
import { ContactsModule } from '../contacts/contacts.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { EventsController } from './events.controller';
import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';
import { TrackController } from './track.controller';
import { TrackRepository } from './track.repository';
import { TrackService } from './track.service';

@Module({
  imports: [ContactsModule, IdempotencyModule],
  controllers: [TrackController, EventsController],
  providers: [EventsRepository, EventsService, TrackRepository, TrackService],
  exports: [TrackService],
})
export class EventsModule {}
