import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { ClickCounter } from './click-counter';
import { ClickWriter } from './click-writer';
import { ClicksCountedInterceptor } from './clicks-counted.interceptor';
import { ClicksController } from './clicks.controller';
import { ClicksRepository } from './clicks.repository';
import { ClicksService } from './clicks.service';

/** The public click-tracking redirect `GET /r/{code}` (links are created by the engine's link DMs). */
@Module({
  controllers: [ClicksController],
  providers: [ClicksRepository, ClickCounter, ClickWriter, ClicksService, { provide: APP_INTERCEPTOR, useClass: ClicksCountedInterceptor }],
  exports: [ClicksService],
})
export class ClicksModule {}
