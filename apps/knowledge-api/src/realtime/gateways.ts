import { WebSocketGateway, WebSocketServer, type OnGatewayInit } from '@nestjs/websockets';
import type { Namespace } from 'socket.io';
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

/** Namespace `/logs`: server events `log_entry` ({timestamp, level, message}) and `log_batch` (an array of them). */
@WebSocketGateway({ namespace: '/logs' })
export class LogsGateway implements OnGatewayInit {
  @WebSocketServer() server!: Namespace;

  constructor(private readonly config: KnowledgeApiConfig) {}

  afterInit(ns: Namespace): void {
    requireApiKey(ns, this.config.KNOWLEDGE_API_KEY);
  }
}
