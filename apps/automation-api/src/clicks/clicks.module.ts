import { Module } from '@nestjs/common';
import { ClickCounter } from './click-counter';
import { ClickWriter } from './click-writer';
import { ClicksController } from './clicks.controller';
import { ClicksRepository } from './clicks.repository';
import { ClicksService } from './clicks.service';

/** The public click-tracking redirect `GET /r/{code}` (links are created by the engine's link DMs). */
@Module({
  controllers: [ClicksController],
  providers: [ClicksRepository, ClickCounter, ClickWriter, ClicksService],
  exports: [ClicksService],
})
export class ClicksModule {}
