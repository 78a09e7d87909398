import { Module } from '@nestjs/common';
import { MailEventsModule } from '../mail-events/mail-events.module';
import { TrackingController } from './tracking.controller';
import { TrackingLinks } from './tracking-links';

@Module({ imports: [MailEventsModule], controllers: [TrackingController], providers: [TrackingLinks], exports: [TrackingLinks] })
export class TrackingModule {}
