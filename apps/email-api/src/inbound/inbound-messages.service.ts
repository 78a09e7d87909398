import { Injectable } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { decodeCursor, toPage, type CursorPage } from '../common/pagination';
import { DEFAULT_LIMIT } from '../common/list-query.dto';
import { toInboundMessage, type InboundMessage } from './inbound-message';
import { InboundMessagesRepository } from './inbound-messages.repository';

export const inboundNotFound = () =>
  new ApiError(404, 'INBOUND_MESSAGE_NOT_FOUND', 'Inbound message not found', { suggestion: 'List the project\'s received messages with GET /inbound.' });

/** Reading the received messages of a project. */
@Injectable()
export class InboundMessagesService {
  constructor(private readonly messages: InboundMessagesRepository) {}

  /** Newest first; the list leaves out bodies and headers (GET /inbound/:id has them). */
  async list(projectId: string, query: { limit?: number; cursor?: string; emailId?: string }): Promise<CursorPage<InboundMessage>> {
    const limit = query.limit ?? DEFAULT_LIMIT;
    const after = decodeCursor(query.cursor);
    const rows = await this.messages.page(projectId, after, limit + 1, query.emailId);
    const total = after ? null : await this.messages.count(projectId, query.emailId);
    return toPage(rows.map((r) => toInboundMessage(r, false)), limit, total);
  }

  async get(projectId: string, id: string): Promise<InboundMessage> {
    const row = /^inb_[0-9a-z]{20}$/.test(id) ? await this.messages.findById(projectId, id) : null;
    if (!row) throw inboundNotFound();
    return toInboundMessage(row, true);
  }
}
