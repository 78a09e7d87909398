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
import { isFinal } from './progress-phases';
import { eventFor, withMessage, type ProgressPayload } from './progress-payload';
import { ProgressSnapshots } from './progress-snapshots.service';

/**
 * The stored progress of a room just joined: returned in the subscription's acknowledgement, and
 * also emitted as its event when the crawl has already ended (so a late subscriber still gets its
 * `progress_complete`/`progress_error`). A running crawl's snapshot is not emitted: it could reach the
 * client after a newer live event of the room and look like progress going back.
 */
async function snapshot(snapshots: ProgressSnapshots, socket: Socket, progressId: string, root: boolean): Promise<ProgressPayload | null> {
  const stored = await snapshots.find(progressId);
  if (!stored) return null;
  const payload = root ? withMessage(stored) : stored;
  if (isFinal(payload.status)) socket.emit(eventFor(payload.status), payload);
  return payload;
}
/**
 * The spec's progress channels: namespace `/crawl` (client `subscribe` with `progress_id`) and the
 * root namespace (`join_progress`, `join_project`). A subscription joins the progress id's room and
 * reads the stored progress (from the database, whichever replica runs the crawl), so a client that
 * connects late or reconnects loses nothing; later events reach it through the
 * Socket.IO adapter (Redis across replicas). The acknowledgement of a subscription carries the
 * stored progress (`progress`, null for an unknown id).
 */
@WebSocketGateway({ namespace: '/crawl' })
export class CrawlGateway implements OnGatewayInit {
  @WebSocketServer() server!: Namespace;

  constructor(
    private readonly config: KnowledgeApiConfig,
    private readonly progress: ProgressSnapshots,
  ) {}

  afterInit(ns: Namespace): void {
    requireApiKey(ns, this.config.KNOWLEDGE_API_KEY);
  }

  @SubscribeMessage('subscribe')
  async subscribe(@ConnectedSocket() socket: Socket, @MessageBody() body: unknown): Promise<unknown> {
    const id = progressIdOf(body);
    if (!id) return { success: false, error: 'progress_id must be the UUID returned by POST /api/knowledge-items/crawl' };
    await socket.join(id);
    return { success: true, progress_id: id, progress: await snapshot(this.progress, socket, id, false) };
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
    private readonly progress: ProgressSnapshots,
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
    return { success: true, progress_id: id, progress: await snapshot(this.progress, socket, id, true) };
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
