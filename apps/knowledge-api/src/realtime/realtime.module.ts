import { Module } from '@nestjs/common';
import { KnowledgeGateway, LogsGateway } from './gateways';
import { RealtimeEvents } from './realtime-events';

@Module({
  providers: [KnowledgeGateway, LogsGateway, RealtimeEvents],
  exports: [RealtimeEvents],
})
export class RealtimeModule {}
