import { Injectable } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import type { Principal } from '../access/principal';
import { ChannelsService } from '../channels/channels.service';
import { ConversationsService } from './conversations.service';
import { MessagesRepository, type MessageHit } from './messages.repository';
import type { Message } from './conversation';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A page cursor: opaque to clients (base64url of the message id it starts after). */
export const encodeCursor = (messageId: string): string => Buffer.from(`m:${messageId}`).toString('base64url');

export function decodeCursor(cursor: string, field: string): string {
  const raw = Buffer.from(cursor, 'base64url').toString('utf8');
  const id = raw.startsWith('m:') ? raw.slice(2) : '';
  if (!UUID.test(id)) throw invalidCursor(field);
  return id.toLowerCase();
}

const invalidCursor = (field: string) =>
  new ApiError(400, 'INVALID_CURSOR', `${field} is not a cursor of this conversation`, { suggestion: 'Pass a cursor from meta.older or meta.newer of a previous page of the same conversation.' });

export interface MessagePage {
  messages: Message[];
  total: number;
  limit: number;
  /** Cursor for the page of older messages (`before`), null when there is none. */
  older: string | null;
  /** Cursor for the messages after this page (`after`): set whenever the page has messages, to continue or to poll for new ones. */
  newer: string | null;
  /** Whether messages newer than this page exist already. */
  hasNewer: boolean;
}

/** Reading messages beyond a conversation's latest ones: cursor pages, and full-text search over the account. */
@Injectable()
export class MessageBrowsing {
  constructor(
    private readonly conversations: ConversationsService,
    private readonly messages: MessagesRepository,
    private readonly channels: ChannelsService,
  ) {}

  /**
   * A page of the conversation's messages, oldest first: the latest `limit`, or those before or after
   * a cursor (`older` / `newer` of an earlier page).
   */
  async page(p: Principal, conversationId: string, q: { before?: string; after?: string; limit: number }): Promise<MessagePage> {
    if (q.before && q.after) {
      throw new ApiError(422, 'VALIDATION_ERROR', 'Give before or after, not both', { errors: [{ field: 'after', message: 'before and after exclude each other', code: 'conflict' }] });
    }
    await this.conversations.get(p, conversationId);
    const before = q.before ? decodeCursor(q.before, 'before') : undefined;
    const after = q.after ? decodeCursor(q.after, 'after') : undefined;
    const page = await this.messages.page(conversationId, { before, after, limit: q.limit });
    if (!page) throw invalidCursor(before ? 'before' : 'after');
    const { messages, more } = page;
    const first = messages[0];
    const last = messages[messages.length - 1];
    // Older messages exist: beyond a backward page when it is full; always before a forward page (its cursor's message at least).
    const hasOlder = after ? Boolean(first) : more;
    // Newer messages exist: after a backward page (its cursor's message at least); beyond a forward page when it is full.
    const hasNewer = before ? true : after ? more : false;
    return {
      messages,
      total: await this.messages.count(conversationId),
      limit: q.limit,
      older: hasOlder && first ? encodeCursor(first.id) : null,
      newer: last ? encodeCursor(last.id) : (q.after ?? null),
      hasNewer,
    };
  }

  /** Full-text search over the messages of the conversations the caller sees (their channels; administrators all). */
  async search(p: Principal, f: { q: string; channelId?: string; conversationId?: string }, limit: number, offset: number): Promise<{ items: MessageHit[]; total: number }> {
    if (f.conversationId) await this.conversations.get(p, f.conversationId);
    const scope = await this.channels.visibleChannelIds(p);
    return this.messages.search(p.accountId, { ...f, channelIds: scope ?? undefined }, limit, offset);
  }
}
