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
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, CASE WHEN $13::boolean THEN now() END, $14) RETURNING *`,
      [m.accountId, m.conversationId, m.channelId, m.messageType, m.content, m.contentType ?? 'text', m.private ?? false, m.status, m.sourceId ?? null, m.senderType ?? null, m.senderId ?? null, JSON.stringify(m.attachments ?? []), m.queued ?? false, m.outbound ? JSON.stringify(m.outbound) : null],
    );
    return toMessage(row!);
  }

  /** Inserts a message carrying a provider id unless that id is stored for the channel already (then null). */
  async insertUnlessStored(m: NewMessage & { sourceId: string }): Promise<Message | null> {
    const row = await this.db.one<Row>(
      `INSERT INTO ${this.t} (account_id, conversation_id, channel_id, message_type, content, content_type, private, status, source_id, sender_type, sender_id, attachments)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
       ON CONFLICT (channel_id, source_id) WHERE source_id IS NOT NULL DO NOTHING RETURNING *`,
      [m.accountId, m.conversationId, m.channelId, m.messageType, m.content, m.contentType ?? 'text', m.private ?? false, m.status, m.sourceId, m.senderType ?? null, m.senderId ?? null, JSON.stringify(m.attachments ?? [])],
    );
    return row ? toMessage(row) : null;
  }

  async list(conversationId: string, limit: number): Promise<Message[]> {
    const rows = await this.db.rows<Row>(`SELECT * FROM (SELECT * FROM ${this.t} WHERE conversation_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2) m ORDER BY created_at, id`, [conversationId, limit]);
    return rows.map(toMessage);
  }

  async existsBySource(channelId: string, sourceId: string): Promise<boolean> {
    const row = await this.db.one<{ ok: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${this.t} WHERE channel_id = $1 AND source_id = $2) AS ok`, [channelId, sourceId]);
    return row?.ok === true;
  }

  async find(conversationId: string, id: string): Promise<Message | null> {
    const row = await this.db.one<Row>(`SELECT * FROM ${this.t} WHERE conversation_id = $1 AND id = $2`, [conversationId, id]);
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

  async markSent(id: string, sourceId: string): Promise<Message | null> {
    const row = await this.db.one<Row>(
      `UPDATE ${this.t} SET status = 'sent', source_id = $2, error = NULL, next_attempt_at = NULL, delivery_lease = NULL WHERE id = $1 AND status = 'pending' RETURNING *`,
      [id, sourceId],
    );
    return row ? toMessage(row) : null;
  }

  /** Leaves the message pending, with the error, due again in `delayMs`. */
  async scheduleRetry(id: string, error: string, delayMs: number): Promise<Message | null> {
    const row = await this.db.one<Row>(
      `UPDATE ${this.t} SET error = $2, next_attempt_at = now() + make_interval(secs => $3::double precision / 1000), delivery_lease = NULL
        WHERE id = $1 AND status = 'pending' RETURNING *`,
      [id, error.slice(0, 1000), delayMs],
    );
    return row ? toMessage(row) : null;
  }

  async markFailed(id: string, error: string): Promise<Message | null> {
    const row = await this.db.one<Row>(`UPDATE ${this.t} SET status = 'failed', error = $2, next_attempt_at = NULL, delivery_lease = NULL WHERE id = $1 RETURNING *`, [id, error.slice(0, 1000)]);
    return row ? toMessage(row) : null;
  }

  /** A failed reply queued again (the retry route): pending, due now, attempts counted afresh. */
  async requeue(id: string): Promise<Message | null> {
    const row = await this.db.one<Row>(
      `UPDATE ${this.t} SET status = 'pending', error = NULL, delivery_attempts = 0, next_attempt_at = now(), delivery_lease = NULL
        WHERE id = $1 AND status = 'failed' AND message_type = 'outgoing' AND NOT private RETURNING *`,
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
        RETURNING *`,
      [channelId, sourceId, status, error, STATUS_RANK[status]],
    );
    return row ? toMessage(row) : null;
  }
}
