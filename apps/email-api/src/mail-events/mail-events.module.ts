import { Module } from '@nestjs/common';
import { SuppressionsModule } from '../suppressions/suppressions.module';
import { MailEventsRepository } from './mail-events.repository';
import { MailEventsService } from './mail-events.service';
import { RollupWorker } from './rollup.worker';

@Module({ imports: [SuppressionsModule], providers: [MailEventsRepository, MailEventsService, RollupWorker], exports: [MailEventsService] })
export class MailEventsModule {}
