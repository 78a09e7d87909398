import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import { OutboxMessage, type EventEnvelope, type OutboxRow } from '@platform/messaging';
import type { OutboundPayload } from '../channels/whatsapp.client';
import type { Attachment, Conversation, Message, MessageStatus, MessageType, OutgoingDelivery } from './conversation';
import { toConversation, type ConversationRow } from './conversations.repository';

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
  private storeIncomingText?: string;

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

  /**
   * The write of a batch of incoming messages of one channel (distinct provider ids), in one
   * statement (its own transaction, as a prepared statement planned once per pooled connection; or
   * the open one): the conversations of the messages are locked
   * (in the order of their ids) and must still have the `status` the caller read (and a named
   * contact where a profile name came), else nothing of theirs is written (`changed`). Then the messages whose provider id is not stored yet (each
   * created a microsecond after the one before it, so messages stored together keep their order),
   * and for each conversation that got one of them: reopened when listed in `reopen` (with its
   * activity line), its contact waiting from now on (unless already waiting), its last activity now.
   * `events` go into the outbox, claimed for `leaseSeconds` by the caller (see
   * ConversationEvents.publish), each only when its `gate` — a message's provider id or a
   * conversation id — was stored or touched. Answers per message, in order, the stored message or
   * null (stored already, or its conversation changed), the touched conversations by id, the outbox
   * rows written (in order) and the changed conversations.
   */
  async storeIncoming(
    channelId: string,
    ms: Array<{ id: string; accountId: string; conversationId: string; senderId: string; sourceId: string; content: string | null; contentType: string; attachments: Attachment[]; contentAttributes?: Record<string, unknown> }>,
    expected: Array<{ id: string; status: string; named: boolean }>,
    reopen: string[],
    events: Array<{ envelope: EventEnvelope<unknown>; gate: { sourceId: string } | { conversationId: string } }>,
    leaseSeconds: number,
  ): Promise<{ messages: Array<Message | null>; conversations: Map<string, Conversation>; events: OutboxRow[]; changed: Set<string> }> {
    const text = (this.storeIncomingText ??= storeIncomingStatement(this.db.schema, this.db.dataSource.getMetadata(OutboxMessage).tablePath));
    const params = [
      channelId,
      ms.map((m) => m.id),
      ms.map((m) => m.accountId),
      ms.map((m) => m.conversationId),
      ms.map((m) => m.content),
      ms.map((m) => m.contentType),
      ms.map((m) => m.sourceId),
      ms.map((m) => m.senderId),
      ms.map((m) => JSON.stringify(m.attachments)),
      ms.map((m) => JSON.stringify(m.contentAttributes ?? {})),
      reopen,
      events.map((e) => e.envelope.id),
      events.map((e) => e.envelope.type),
      events.map((e) => e.envelope.source),
      events.map((e) => e.envelope.occurredAt),
      events.map((e) => e.envelope.correlationId ?? null),
      events.map((e) => JSON.stringify(e.envelope.data)),
      events.map((e) => ('sourceId' in e.gate ? `s:${e.gate.sourceId}` : `c:${e.gate.conversationId}`)),
      leaseSeconds,
      expected.map((e) => e.id),
      expected.map((e) => e.status),
      expected.map((e) => e.named),
    ];
    type Result = { messages: Array<Json<Row>>; conversations: Array<Json<ConversationRow>>; events: OutboxRow[]; changed: string[] };
    const [row] = this.db.inTransaction ? await this.db.rows<Result>(text, params) : await this.db.prepared<Result>('conversation_store_incoming', text, params);
    const stored = new Map(row.messages.map((r) => [r.source_id!, toMessage({ ...r, created_at: new Date(r.created_at) })]));
    const conversations = new Map(
      row.conversations.map((r) => [
        r.id,
        toConversation({
          ...r,
          snoozed_until: r.snoozed_until === null ? null : new Date(r.snoozed_until),
          waiting_since: r.waiting_since === null ? null : new Date(r.waiting_since),
          first_reply_created_at: r.first_reply_created_at === null ? null : new Date(r.first_reply_created_at),
          last_activity_at: new Date(r.last_activity_at),
          created_at: new Date(r.created_at),
          updated_at: new Date(r.updated_at),
        }),
      ]),
    );
    return { messages: ms.map((m) => stored.get(m.sourceId) ?? null), conversations, events: row.events.map((e) => ({ ...e, id: String(e.id) })), changed: new Set(row.changed) };
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

/** A row read through json_agg: its timestamps as text. */
type Json<R> = { [K in keyof R]: R[K] extends Date ? string : R[K] extends Date | null ? string | null : R[K] };

/**
 * `storeIncoming`'s statement for schema `s` and the outbox table `outbox`: $1 channel; per message
 * $2 id, $3 account, $4 conversation, $5 content, $6 content type, $7 provider id, $8 sender
 * (contact), $9 attachments, $10 content attributes; $11 conversations to reopen; per event $12 id,
 * $13 type, $14 source, $15 time, $16 correlation id, $17 data, $18 gate (`s:<provider id>` or
 * `c:<conversation id>`); $19 seconds the outbox rows stay claimed; per conversation of the messages
 * $20 id, $21 the status it must have and $22 whether a profile name came for its contact (then the
 * contact must have a name: naming it is the caller's work). One row: the stored messages, the
 * touched conversations (with their contacts' name, email and phone), the outbox rows (as JSON) and
 * the ids of the conversations not as expected (or not found).
 */
function storeIncomingStatement(s: string, outbox: string): string {
  return `WITH locked AS (
      SELECT c.id, c.status = e.status AND (NOT e.named OR k.name IS NOT NULL) AS unchanged
        FROM ${s}.conversations c
        JOIN unnest($20::uuid[], $21::text[], $22::boolean[]) AS e(id, status, named) ON e.id = c.id
        JOIN ${s}.contacts k ON k.id = c.contact_id
       ORDER BY c.id FOR NO KEY UPDATE OF c
    ),
    m AS (
      INSERT INTO ${s}.messages (id, account_id, conversation_id, channel_id, message_type, content, content_type, private, status, source_id, sender_type, sender_id, attachments, content_attributes, created_at)
      SELECT i.id, i.account_id, i.conversation_id, $1, 'incoming', i.content, i.content_type, false, 'delivered', i.source_id, 'contact', i.sender_id, i.attachments, i.content_attributes,
             now() + make_interval(secs => i.ord / 1e6)
        FROM unnest($2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::text[], $8::uuid[], $9::jsonb[], $10::jsonb[])
             WITH ORDINALITY AS i(id, account_id, conversation_id, content, content_type, source_id, sender_id, attachments, content_attributes, ord)
       WHERE i.conversation_id IN (SELECT id FROM locked WHERE unchanged)
       ORDER BY i.ord
      ON CONFLICT (channel_id, source_id) WHERE source_id IS NOT NULL DO NOTHING
      RETURNING ${COLUMNS}
    ),
    touched AS (SELECT DISTINCT conversation_id AS id FROM m),
    reopened AS (
      INSERT INTO ${s}.messages (account_id, conversation_id, channel_id, message_type, content, status)
      SELECT c.account_id, c.id, $1, 'activity', 'Conversation was reopened by a new message from the contact', 'sent'
        FROM ${s}.conversations c WHERE c.id = ANY($11::uuid[]) AND c.id IN (SELECT id FROM touched)
    ),
    v AS (
      UPDATE ${s}.conversations c
         SET status = CASE WHEN c.id = ANY($11::uuid[]) THEN 'open' ELSE c.status END,
             snoozed_until = CASE WHEN c.id = ANY($11::uuid[]) THEN NULL ELSE c.snoozed_until END,
             waiting_since = COALESCE(c.waiting_since, now()), last_activity_at = now(), updated_at = now()
       WHERE c.id IN (SELECT id FROM touched)
       RETURNING c.*
    ),
    o AS (
      INSERT INTO ${outbox} (event_id, type, source, occurred_at, correlation_id, data, claimed_until)
      SELECT e.event_id, e.type, e.source, e.occurred_at, e.correlation_id, e.data, now() + make_interval(secs => $19::double precision)
        FROM unnest($12::uuid[], $13::text[], $14::text[], $15::timestamptz[], $16::text[], $17::jsonb[], $18::text[])
             WITH ORDINALITY AS e(event_id, type, source, occurred_at, correlation_id, data, gate, ord)
       WHERE e.gate IN (SELECT 's:' || source_id FROM m UNION ALL SELECT 'c:' || id FROM touched)
       ORDER BY e.ord
      RETURNING id, event_id, type, source, occurred_at, correlation_id, data
    )
    SELECT (SELECT coalesce(json_agg(m), '[]') FROM m) AS messages,
           (SELECT coalesce(json_agg(x), '[]') FROM (SELECT v.*, k.name AS contact_name, k.email AS contact_email, k.phone AS contact_phone FROM v JOIN ${s}.contacts k ON k.id = v.contact_id) x) AS conversations,
           (SELECT coalesce(json_agg(o ORDER BY o.id), '[]') FROM o) AS events,
           ARRAY(SELECT id FROM unnest($20::uuid[]) AS e(id) WHERE id NOT IN (SELECT id FROM locked WHERE unchanged)) AS changed`;
}
