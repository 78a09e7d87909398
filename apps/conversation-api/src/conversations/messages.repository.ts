import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { Attachment, Message, MessageStatus, MessageType, OutboundPayload, OutgoingDelivery } from './conversation';

interface Row {
  id: string;
  conversation_id: string;
  message_type: MessageType;
  content: string | null;
  content_type: string;
  private: boolean;
  status: MessageStatus;
  source_id: string | null;
  sender_type: 'contact' | 'user' | null;
  sender_id: string | null;
  attachments: Attachment[];
  error: string | null;
  content_attributes: Record<string, unknown> | null;
  created_at: Date;
}

const toMessage = (r: Row): Message => ({
  id: r.id,
  conversationId: r.conversation_id,
  messageType: r.message_type,
  content: r.content,
  contentType: r.content_type,
  private: r.private,
  status: r.status,
  sourceId: r.source_id,
  senderType: r.sender_type,
  senderId: r.sender_id,
  attachments: r.attachments,
  error: r.error,
  contentAttributes: r.content_attributes ?? {},
  createdAt: r.created_at,
});

export interface NewMessage {
  accountId: string;
  conversationId: string;
  channelId: string;
  messageType: MessageType;
  content: string | null;
  contentType?: string;
  private?: boolean;
  status: MessageStatus;
  sourceId?: string | null;
  senderType?: 'contact' | 'user' | null;
  senderId?: string | null;
  attachments?: Attachment[];
  /** Queue it for the delivery worker (an agent's public reply). */
  queued?: boolean;
  /** A media or template reply's payload. */
  outbound?: OutboundPayload | null;
  /** Channel-specific details (an email's headers). */
  contentAttributes?: Record<string, unknown>;
}

/** The columns a Message is read from (not the search vector, which is large and never shown). */
const COLUMNS = 'id, account_id, conversation_id, channel_id, message_type, content, content_type, private, status, source_id, sender_type, sender_id, attachments, error, content_attributes, created_at';

/** A message found by full-text search, with its conversation and a highlighted excerpt. */
export interface MessageHit {
  message: Message;
  rank: number;
  highlight: string;
  conversation: { id: string; displayId: number; contactName: string | null };
}

/** Message status moves only forward (a late `delivered` never undoes `read`); `failed` ends it. */
const STATUS_RANK: Record<MessageStatus, number> = { pending: 0, sent: 1, delivered: 2, read: 3, failed: 4 };

@Injectable()
export class MessagesRepository {
  constructor(private readonly db: Database) {}

  private get t(): string {
    return this.db.table('messages');
  }

  async insert(m: NewMessage): Promise<Message> {
    const row = await this.db.one<Row>(
      `INSERT INTO ${this.t} (account_id, conversation_id, channel_id, message_type, content, content_type, private, status, source_id, sender_type, sender_id, attachments, next_attempt_at, outbound)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, CASE WHEN $13::boolean THEN now() END, $14) RETURNING ${COLUMNS}`,
      [m.accountId, m.conversationId, m.channelId, m.messageType, m.content, m.contentType ?? 'text', m.private ?? false, m.status, m.sourceId ?? null, m.senderType ?? null, m.senderId ?? null, JSON.stringify(m.attachments ?? []), m.queued ?? false, m.outbound ? JSON.stringify(m.outbound) : null],
    );
    return toMessage(row!);
  }

  /** Inserts a message carrying a provider id unless that id is stored for the channel already (then null). */
  async insertUnlessStored(m: NewMessage & { sourceId: string }): Promise<Message | null> {
    const row = await this.db.one<Row>(
      `INSERT INTO ${this.t} (account_id, conversation_id, channel_id, message_type, content, content_type, private, status, source_id, sender_type, sender_id, attachments, content_attributes)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
       ON CONFLICT (channel_id, source_id) WHERE source_id IS NOT NULL DO NOTHING RETURNING ${COLUMNS}`,
      [m.accountId, m.conversationId, m.channelId, m.messageType, m.content, m.contentType ?? 'text', m.private ?? false, m.status, m.sourceId, m.senderType ?? null, m.senderId ?? null, JSON.stringify(m.attachments ?? []), JSON.stringify(m.contentAttributes ?? {})],
    );
    return row ? toMessage(row) : null;
  }

  async list(conversationId: string, limit: number): Promise<Message[]> {
    const rows = await this.db.rows<Row>(`SELECT * FROM (SELECT ${COLUMNS} FROM ${this.t} WHERE conversation_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2) m ORDER BY created_at, id`, [conversationId, limit]);
    return rows.map(toMessage);
  }

  /**
   * One page of a conversation's messages, oldest first: the latest `limit` ones, or those just older
   * than the message `before`, or just newer than the message `after` (keyset paging on
   * (created_at, id), so pages stay exact while messages arrive). `more`: whether messages lie beyond
   * the page in its direction. null when the cursor's message is not in this conversation.
   */
  async page(conversationId: string, opts: { before?: string; after?: string; limit: number }): Promise<{ messages: Message[]; more: boolean } | null> {
    const cursorId = opts.before ?? opts.after;
    if (cursorId && !(await this.find(conversationId, cursorId))) return null;
    const k = `(SELECT created_at FROM ${this.t} WHERE id = $2), $2::uuid`;
    const sql = opts.after
      ? `SELECT ${COLUMNS} FROM ${this.t} WHERE conversation_id = $1 AND (created_at, id) > (${k}) ORDER BY created_at, id LIMIT $3`
      : `SELECT ${COLUMNS} FROM ${this.t} WHERE conversation_id = $1 ${opts.before ? `AND (created_at, id) < (${k})` : 'AND $2::uuid IS NULL'} ORDER BY created_at DESC, id DESC LIMIT $3`;
    const rows = await this.db.rows<Row>(sql, [conversationId, cursorId ?? null, opts.limit + 1]);
    const more = rows.length > opts.limit;
    const kept = rows.slice(0, opts.limit);
    if (!opts.after) kept.reverse();
    return { messages: kept.map(toMessage), more };
  }

  /** How many messages the conversation holds. */
  async count(conversationId: string): Promise<number> {
    return (await this.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.t} WHERE conversation_id = $1`, [conversationId]))?.n ?? 0;
  }

  /**
   * Full-text search over the account's message texts (the GIN-indexed `search` vector; English stems
   * or plain words, `websearch_to_tsquery` syntax: words, "quoted phrases", -excluded, or), private
   * notes included, activity lines not; best match first, then newest. Limited to `channelIds` when
   * given (an agent's inboxes). Each hit carries a highlighted excerpt (`<b>…</b>`).
   */
  async search(accountId: string, f: { q: string; channelIds?: string[]; channelId?: string; conversationId?: string }, limit: number, offset: number): Promise<{ items: MessageHit[]; total: number }> {
    const params: unknown[] = [accountId, f.q];
    const where = [`m.account_id = $1`, `m.search @@ q.query`, `m.message_type <> 'activity'`];
    const add = (sql: (n: string) => string, value: unknown) => {
      params.push(value);
      where.push(sql(`$${params.length}`));
    };
    if (f.channelIds) add((n) => `m.channel_id = ANY(${n}::uuid[])`, f.channelIds);
    if (f.channelId) add((n) => `m.channel_id = ${n}`, f.channelId);
    if (f.conversationId) add((n) => `m.conversation_id = ${n}`, f.conversationId);
    const rows = await this.db.rows<Row & { total: number; rank: number; display_id: number; highlight: string; contact_name: string | null }>(
      `WITH q AS (SELECT websearch_to_tsquery('english', $2) || websearch_to_tsquery('simple', $2) AS query),
            hits AS (
              SELECT ${COLUMNS.split(', ').map((c) => `m.${c}`).join(', ')}, ts_rank(m.search, q.query) AS rank, count(*) OVER ()::int AS total
                FROM ${this.t} m, q WHERE ${where.join(' AND ')}
               ORDER BY rank DESC, m.created_at DESC, m.id LIMIT ${limit} OFFSET ${offset})
       SELECT h.*, v.display_id, c.name AS contact_name,
              ts_headline('english', coalesce(h.content, ''), q.query, 'MaxWords=30, MinWords=10, MaxFragments=2') AS highlight
         FROM hits h CROSS JOIN q JOIN ${this.db.table('conversations')} v ON v.id = h.conversation_id JOIN ${this.db.table('contacts')} c ON c.id = v.contact_id
        ORDER BY h.rank DESC, h.created_at DESC, h.id`,
      params,
    );
    let total = rows[0]?.total ?? 0;
    if (!rows.length && offset > 0) {
      total = (await this.db.one<{ n: number }>(`WITH q AS (SELECT websearch_to_tsquery('english', $2) || websearch_to_tsquery('simple', $2) AS query) SELECT count(*)::int AS n FROM ${this.t} m, q WHERE ${where.join(' AND ')}`, params))?.n ?? 0;
    }
    return {
      items: rows.map((r) => ({ message: toMessage(r), rank: Number(r.rank), highlight: r.highlight, conversation: { id: r.conversation_id, displayId: r.display_id, contactName: r.contact_name } })),
      total,
    };
  }

  /** The email headers (`content_attributes.email`) and Message-ID of the conversation's latest mail, either way; null when it has none. */
  async latestMail(conversationId: string): Promise<{ messageId: string; email: Record<string, unknown> } | null> {
    const row = await this.db.one<{ source_id: string; email: Record<string, unknown> }>(
      `SELECT source_id, content_attributes -> 'email' AS email FROM ${this.t}
        WHERE conversation_id = $1 AND source_id IS NOT NULL AND content_attributes ? 'email' AND NOT private
        ORDER BY created_at DESC, id DESC LIMIT 1`,
      [conversationId],
    );
    return row ? { messageId: row.source_id, email: row.email } : null;
  }

  async existsBySource(channelId: string, sourceId: string): Promise<boolean> {
    const row = await this.db.one<{ ok: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${this.t} WHERE channel_id = $1 AND source_id = $2) AS ok`, [channelId, sourceId]);
    return row?.ok === true;
  }

  async find(conversationId: string, id: string): Promise<Message | null> {
    const row = await this.db.one<Row>(`SELECT ${COLUMNS} FROM ${this.t} WHERE conversation_id = $1 AND id = $2`, [conversationId, id]);
    return row ? toMessage(row) : null;
  }

  /**
   * Claims up to `limit` queued replies that are due (FOR UPDATE SKIP LOCKED, a lease of
   * `leaseSeconds`): a replica that crashes mid-send leaves the lease to run out and another takes
   * the message again. Each claim counts an attempt.
   */
  async claimDeliveries(limit: number, leaseSeconds: number): Promise<OutgoingDelivery[]> {
    const rows = await this.db.claimDue<Row & { account_id: string; channel_id: string; delivery_attempts: number; outbound: OutboundPayload | null }>({
      table: this.t,
      where: `status = 'pending' AND next_attempt_at <= now()`,
      orderBy: 'next_attempt_at',
      limit,
      lease: { column: 'delivery_lease', seconds: leaseSeconds },
      set: 'delivery_attempts = delivery_attempts + 1',
    });
    return rows.map((r) => ({ message: toMessage(r), outbound: r.outbound, accountId: r.account_id, channelId: r.channel_id, attempt: r.delivery_attempts }));
  }

  /** Sent: the provider's id, and (email) the headers it went out with merged into `content_attributes`. */
  async markSent(id: string, sourceId: string, attributes?: Record<string, unknown>): Promise<Message | null> {
    const row = await this.db.one<Row>(
      `UPDATE ${this.t} SET status = 'sent', source_id = $2, error = NULL, next_attempt_at = NULL, delivery_lease = NULL, content_attributes = content_attributes || $3::jsonb
        WHERE id = $1 AND status = 'pending' RETURNING ${COLUMNS}`,
      [id, sourceId, JSON.stringify(attributes ?? {})],
    );
    return row ? toMessage(row) : null;
  }

  /** Leaves the message pending, with the error, due again in `delayMs`. */
  async scheduleRetry(id: string, error: string, delayMs: number): Promise<Message | null> {
    const row = await this.db.one<Row>(
      `UPDATE ${this.t} SET error = $2, next_attempt_at = now() + make_interval(secs => $3::double precision / 1000), delivery_lease = NULL
        WHERE id = $1 AND status = 'pending' RETURNING ${COLUMNS}`,
      [id, error.slice(0, 1000), delayMs],
    );
    return row ? toMessage(row) : null;
  }

  async markFailed(id: string, error: string): Promise<Message | null> {
    const row = await this.db.one<Row>(`UPDATE ${this.t} SET status = 'failed', error = $2, next_attempt_at = NULL, delivery_lease = NULL WHERE id = $1 RETURNING ${COLUMNS}`, [id, error.slice(0, 1000)]);
    return row ? toMessage(row) : null;
  }

  /** A failed reply queued again (the retry route): pending, due now, attempts counted afresh. */
  async requeue(id: string): Promise<Message | null> {
    const row = await this.db.one<Row>(
      `UPDATE ${this.t} SET status = 'pending', error = NULL, delivery_attempts = 0, next_attempt_at = now(), delivery_lease = NULL
        WHERE id = $1 AND status = 'failed' AND message_type = 'outgoing' AND NOT private RETURNING ${COLUMNS}`,
      [id],
    );
    return row ? toMessage(row) : null;
  }

  /** A provider status callback: moves the message forward only. */
  async advanceStatus(channelId: string, sourceId: string, status: MessageStatus, error: string | null): Promise<Message | null> {
    const row = await this.db.one<Row>(
      `UPDATE ${this.t} SET status = $3, error = COALESCE($4, error)
        WHERE channel_id = $1 AND source_id = $2 AND status <> 'failed'
          AND (CASE status WHEN 'pending' THEN 0 WHEN 'sent' THEN 1 WHEN 'delivered' THEN 2 WHEN 'read' THEN 3 ELSE 4 END) < $5
        RETURNING ${COLUMNS}`,
      [channelId, sourceId, status, error, STATUS_RANK[status]],
    );
    return row ? toMessage(row) : null;
  }
}
