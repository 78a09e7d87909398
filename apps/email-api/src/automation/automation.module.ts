import { Module } from '@nestjs/common';
import { ContactsModule } from '../contacts/contacts.module';
import { EventsModule } from '../events/events.module';
import { AutomationEventsConsumer } from './automation-events.consumer';

@Module({ imports: [ContactsModule, EventsModule], providers: [AutomationEventsConsumer] })
export class AutomationModule {}
