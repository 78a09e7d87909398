import { Injectable } from '@nestjs/common';
import { KnowledgeGateway, LogsGateway } from './gateways';

export interface LogEntry {
  timestamp: string;
  level: 'debug' | 'info' | 'warning' | 'error';
  message: string;
}

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
    this.logs.server?.emit('log_entry', { timestamp: new Date().toISOString(), level, message } satisfies LogEntry);
  }

  logBatch(entries: LogEntry[]): void {
    if (entries.length) this.logs.server?.emit('log_batch', entries);
  }
}
