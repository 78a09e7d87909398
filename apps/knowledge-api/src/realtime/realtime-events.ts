import { Injectable } from '@nestjs/common';
import { KnowledgeGateway, LogsGateway, type LogEntry } from './gateways';

/** Emits on `/knowledge` and `/logs`; through the Socket.IO adapter the events reach clients of every replica. */
@Injectable()
export class RealtimeEvents {
  constructor(
    private readonly knowledge: KnowledgeGateway,
    private readonly logs: LogsGateway,
  ) {}

  sourceChanged(created: boolean, source: { source_id: string; title: string; [key: string]: unknown }): void {
    this.knowledge.server?.emit(created ? 'source_added' : 'source_updated', source);
  }

  log(level: LogEntry['level'], message: string): void {
    this.logs.publish({ timestamp: new Date().toISOString(), level, message });
  }
}
