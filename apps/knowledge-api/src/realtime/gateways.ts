import { WebSocketGateway, WebSocketServer, type OnGatewayConnection, type OnGatewayInit } from '@nestjs/websockets';
import type { Namespace, Socket } from 'socket.io';
import { KnowledgeApiConfig } from '../config';
import { requireApiKey } from './socket-auth';

/** Namespace `/knowledge`: server events `source_added`, `source_updated` (data has `source_id`). */
@WebSocketGateway({ namespace: '/knowledge' })
export class KnowledgeGateway implements OnGatewayInit {
  @WebSocketServer() server!: Namespace;

  constructor(private readonly config: KnowledgeApiConfig) {}

  afterInit(ns: Namespace): void {
    requireApiKey(ns, this.config.KNOWLEDGE_API_KEY);
  }
}

/**
 * Namespace `/logs`: server events `log_entry` ({timestamp, level, message}) for each crawl log line,
 * and `log_batch` (an array of them): the last 100 entries of this replica, sent to a client when it
 * connects.
 */
@WebSocketGateway({ namespace: '/logs' })
export class LogsGateway implements OnGatewayInit, OnGatewayConnection {
  @WebSocketServer() server!: Namespace;
  private readonly recent: LogEntry[] = [];

  constructor(private readonly config: KnowledgeApiConfig) {}

  afterInit(ns: Namespace): void {
    requireApiKey(ns, this.config.KNOWLEDGE_API_KEY);
  }

  handleConnection(socket: Socket): void {
    if (this.recent.length) socket.emit('log_batch', [...this.recent]);
  }

  publish(entry: LogEntry): void {
    this.recent.push(entry);
    if (this.recent.length > 100) this.recent.shift();
    this.server?.emit('log_entry', entry);
  }
}

export interface LogEntry {
  timestamp: string;
  level: 'debug' | 'info' | 'warning' | 'error';
  message: string;
}
