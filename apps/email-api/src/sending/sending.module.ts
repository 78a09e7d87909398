import { Module } from '@nestjs/common';
import { SendingController } from './sending.controller';
import { SendingRepository } from './sending.repository';
import { SendingService } from './sending.service';

/** The project's send rate setting; the throttle itself is the send worker's (emails/throttle.ts). */
@Module({ controllers: [SendingController], providers: [SendingRepository, SendingService] })
export class SendingModule {}
