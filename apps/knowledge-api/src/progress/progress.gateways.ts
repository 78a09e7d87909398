import {
  ConnectedSocket,
  MessageBody,
  SubscribeMessage,
  WebSocketGateway,
  WebSocketServer,
  type OnGatewayInit,
} from '@nestjs/websockets';
import type { Namespace, Socket } from 'socket.io';
import { KnowledgeApiConfig } from '../config';
import { progressIdOf, requireApiKey } from '../realtime/socket-auth';
import { eventFor, toPayload, withMessage } from './progress-payload';
import { ProgressRepository } from './progress.repository';

/** Sends the stored progress to one socket that just subscribed (nothing for an unknown id). */
async function replay(repo: ProgressRepository, socket: Socket, progressId: string, root: boolean): Promise<void> {
  const row = await repo.find(progressId);
  if (!row) return;
  const payload = toPayload(row);
  socket.emit(eventFor(payload.status), root ? withMessage(payload) : payload);
}

/**
 * The spec's progress channels: namespace `/crawl` (client `subscribe` with `progress_id`) and the
 * root namespace (`join_progress`, `join_project`). A subscription joins the progress id's room and
 * answers at once with the stored progress (from the database, whichever replica runs the crawl),
 * so a client that connects late or reconnects loses nothing; later events reach it through the
 * Socket.IO adapter (Redis across replicas).
 */
@WebSocketGateway({ namespace: '/crawl' })
export class CrawlGateway implements OnGatewayInit {
  @WebSocketServer() server!: Namespace;

  constructor(
    private readonly config: KnowledgeApiConfig,
    private readonly progress: ProgressRepository,
  ) {}

  afterInit(ns: Namespace): void {
    requireApiKey(ns, this.config.KNOWLEDGE_API_KEY);
  }

  @SubscribeMessage('subscribe')
  async subscribe(@ConnectedSocket() socket: Socket, @MessageBody() body: unknown): Promise<unknown> {
    const id = progressIdOf(body);
    if (!id) return { success: false, error: 'progress_id must be the UUID returned by POST /api/knowledge-items/crawl' };
    await socket.join(id);
    await replay(this.progress, socket, id, false);
    return { success: true, progress_id: id };
  }

  @SubscribeMessage('unsubscribe')
  async unsubscribe(@ConnectedSocket() socket: Socket, @MessageBody() body: unknown): Promise<unknown> {
    const id = progressIdOf(body);
    if (id) await socket.leave(id);
    return { success: !!id };
  }
}

@WebSocketGateway()
export class RootGateway implements OnGatewayInit {
  @WebSocketServer() server!: Namespace;

  constructor(
    private readonly config: KnowledgeApiConfig,
    private readonly progress: ProgressRepository,
  ) {}

  afterInit(server: Namespace): void {
    // On the root namespace Nest hands over the Server; its `of('/')` is the namespace.
    const ns = (server as unknown as { of?: (n: string) => Namespace }).of?.('/') ?? server;
    requireApiKey(ns, this.config.KNOWLEDGE_API_KEY);
  }

  @SubscribeMessage('join_progress')
  async joinProgress(@ConnectedSocket() socket: Socket, @MessageBody() body: unknown): Promise<unknown> {
    const id = progressIdOf(body);
    if (!id) return { success: false, error: 'progress_id must be a UUID' };
    await socket.join(id);
    await replay(this.progress, socket, id, true);
    return { success: true, progress_id: id };
  }

  @SubscribeMessage('leave_progress')
  async leaveProgress(@ConnectedSocket() socket: Socket, @MessageBody() body: unknown): Promise<unknown> {
    const id = progressIdOf(body);
    if (id) await socket.leave(id);
    return { success: !!id };
  }

  @SubscribeMessage('join_project')
  async joinProject(@ConnectedSocket() socket: Socket, @MessageBody() body: unknown): Promise<unknown> {
    const raw = body && typeof body === 'object' ? (body as { project_id?: unknown }).project_id : body;
    if (typeof raw !== 'string' || !raw.trim()) return { success: false, error: 'project_id is required' };
    await socket.join(`project:${raw.trim()}`);
    return { success: true, project_id: raw.trim() };
  }
}
