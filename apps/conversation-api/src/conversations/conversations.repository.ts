import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { Conversation, ConversationStatus, Priority } from './conversation';

/** A conversation row with its contact's name, email and phone (as `select` reads it). */
export interface ConversationRow {
  id: string;
  account_id: string;
  display_id: number;
  channel_id: string;
  contact_id: string;
  status: ConversationStatus;
  priority: Priority | null;
  assignee_id: string | null;
  team_id: string | null;
  labels: string[];
  snoozed_until: Date | null;
  waiting_since: Date | null;
  first_reply_created_at: Date | null;
  last_activity_at: Date;
  created_at: Date;
  updated_at: Date;
  contact_name: string | null;
  contact_email: string | null;
  contact_phone: string | null;
}

export const toConversation = (r: ConversationRow): Conversation => ({
  id: r.id,
  accountId: r.account_id,
  displayId: r.display_id,
  channelId: r.channel_id,
  contactId: r.contact_id,
  status: r.status,
  priority: r.priority,
  assigneeId: r.assignee_id,
  teamId: r.team_id,
  labels: r.labels,
  snoozedUntil: r.snoozed_until,
  waitingSince: r.waiting_since,
  firstReplyCreatedAt: r.first_reply_created_at,
  lastActivityAt: r.last_activity_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  contact: { id: r.contact_id, name: r.contact_name, email: r.contact_email, phone: r.contact_phone },
});

export interface ConversationFilters {
  status?: ConversationStatus | 'all';
  assigneeId?: string;
  teamId?: string;
  channelId?: string;
  /** Only these channels (an agent's inboxes); undefined: every channel. */
  channelIds?: string[];
  contactId?: string;
  label?: string;
  unassigned?: boolean;
  q?: string;
}

/**
 * A conversation's columns, named (not `v.*`): a statement's result then does not follow the table,
 * so the hot ones can be planned once per connection (HotStatements of @platform/database).
 */
const COLUMNS = ['id', 'account_id', 'display_id', 'channel_id', 'contact_id', 'status', 'priority', 'assignee_id', 'team_id', 'labels', 'snoozed_until', 'waiting_since', 'first_reply_created_at', 'last_activity_at', 'created_at', 'updated_at']
  .map((c) => `v.${c}`)
  .join(', ');
/** Its contact's name, email and phone beside it (ConversationRow). */
const CONTACT_COLUMNS = 'c.name AS contact_name, c.email AS contact_email, c.phone AS contact_phone';

const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

@Injectable()
export class ConversationsRepository {
  constructor(private readonly db: Database) {}

  private get t(): string {
    return this.db.table('conversations');
  }

  private select(where: string, extra = ''): string {
    return `SELECT ${COLUMNS}, ${CONTACT_COLUMNS}${extra}
              FROM ${this.t} v JOIN ${this.db.table('contacts')} c ON c.id = v.contact_id WHERE ${where}`;
  }

  /**
   * Most recent activity first. `status` defaults to every status; `q` matches the contact's name,
   * email and phone, and message texts (private notes included: agents search their own notes).
   */
  async list(accountId: string, f: ConversationFilters, limit: number, offset: number): Promise<{ items: Conversation[]; total: number }> {
    const params: unknown[] = [accountId];
    const where = ['v.account_id = $1'];
    const add = (sql: (n: string) => string, value: unknown) => {
      params.push(value);
      where.push(sql(`$${params.length}`));
    };
    if (f.status && f.status !== 'all') add((n) => `v.status = ${n}`, f.status);
    if (f.assigneeId) add((n) => `v.assignee_id = ${n}`, f.assigneeId);
    if (f.teamId) add((n) => `v.team_id = ${n}`, f.teamId);
    if (f.channelId) add((n) => `v.channel_id = ${n}`, f.channelId);
    if (f.channelIds) add((n) => `v.channel_id = ANY(${n}::uuid[])`, f.channelIds);
    if (f.contactId) add((n) => `v.contact_id = ${n}`, f.contactId);
    if (f.label) add((n) => `${n} = ANY(v.labels)`, f.label);
    if (f.unassigned) where.push('v.assignee_id IS NULL');
    if (f.q) {
      // Contact fields by substring; message texts through the full-text index (messages.search, GIN).
      params.push(likePattern(f.q), f.q);
      const [like, text] = [`$${params.length - 1}`, `$${params.length}`];
      where.push(`(c.name ILIKE ${like} OR c.email ILIKE ${like} OR c.phone ILIKE ${like}
                   OR v.id IN (SELECT m.conversation_id FROM ${this.db.table('messages')} m
                                WHERE m.account_id = $1 AND m.message_type <> 'activity'
                                  AND m.search @@ (websearch_to_tsquery('english', ${text}) || websearch_to_tsquery('simple', ${text}))))`);
    }
    const rows = await this.db.rows<ConversationRow & { total: number }>(
      `${this.select(where.join(' AND '), ', count(*) OVER ()::int AS total')} ORDER BY v.last_activity_at DESC, v.id LIMIT ${limit} OFFSET ${offset}`,
      params,
    );
    let total = rows[0]?.total ?? 0;
    if (!rows.length && offset > 0) {
      total = (await this.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.t} v JOIN ${this.db.table('contacts')} c ON c.id = v.contact_id WHERE ${where.join(' AND ')}`, params))?.n ?? 0;
    }
    return { items: rows.map(toConversation), total };
  }

  async find(accountId: string, id: string): Promise<Conversation | null> {
    const row = await this.db.one<ConversationRow>(this.select('v.account_id = $1 AND v.id = $2'), [accountId, id]);
    return row ? toConversation(row) : null;
  }

  /** The conversation, its row locked for the transaction (status and assignment changes take turns). */
  async lock(accountId: string, id: string): Promise<Conversation | null> {
    const row = await this.db.one<ConversationRow>(`${this.select('v.account_id = $1 AND v.id = $2')} FOR NO KEY UPDATE OF v`, [accountId, id]);
    return row ? toConversation(row) : null;
  }


  /**
   * The latest conversation on the channel of each sender among `sourceIds` whose contact is known on
   * the channel and has one, locked for the transaction when `lock` (in the order of their ids); by
   * sender id. Senders without either are absent.
   */
  async latestForSources(channelId: string, sourceIds: string[], lock: boolean): Promise<Map<string, Conversation>> {
    const rows = await this.db.rows<ConversationRow & { sender: string }>(
      `SELECT s.sender, ${COLUMNS}, ${CONTACT_COLUMNS}
         FROM unnest($2::text[]) AS s(sender)
         JOIN ${this.db.table('contact_inboxes')} ci ON ci.channel_id = $1 AND ci.source_id = s.sender
         JOIN ${this.db.table('contacts')} c ON c.id = ci.contact_id
         JOIN LATERAL (SELECT * FROM ${this.t} x WHERE x.channel_id = $1 AND x.contact_id = ci.contact_id ORDER BY x.created_at DESC LIMIT 1) v ON true
        ORDER BY v.id${lock ? ' FOR NO KEY UPDATE OF v' : ''}`,
      [channelId, sourceIds],
    );
    return new Map(rows.map((r) => [r.sender, toConversation(r)]));
  }

  /** The latest conversation of the channel holding one of the messages `sourceIds` (an email thread's Message-IDs), locked; null when none does. */
  async ofThread(channelId: string, sourceIds: string[]): Promise<Conversation | null> {
    if (!sourceIds.length) return null;
    const row = await this.db.one<ConversationRow>(
      `${this.select(`v.id = (SELECT m.conversation_id FROM ${this.db.table('messages')} m WHERE m.channel_id = $1 AND m.source_id = ANY($2::text[]) ORDER BY m.created_at DESC LIMIT 1)`)}
        FOR NO KEY UPDATE OF v`,
      [channelId, sourceIds],
    );
    return row ? toConversation(row) : null;
  }

  async insert(c: { accountId: string; displayId: number; channelId: string; contactId: string; status: ConversationStatus; assigneeId: string | null; teamId: string | null }): Promise<string> {
    const row = await this.db.one<{ id: string }>(
      `INSERT INTO ${this.t} (account_id, display_id, channel_id, contact_id, status, assignee_id, team_id) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
      [c.accountId, c.displayId, c.channelId, c.contactId, c.status, c.assigneeId, c.teamId],
    );
    return row!.id;
  }

  /** New conversations with the ids given, in one statement. */
  async insertMany(rows: Array<{ id: string; accountId: string; displayId: number; channelId: string; contactId: string; status: ConversationStatus; assigneeId: string | null; teamId: string | null }>): Promise<void> {
    if (!rows.length) return;
    await this.db.affected(
      `INSERT INTO ${this.t} (id, account_id, display_id, channel_id, contact_id, status, assignee_id, team_id)
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::int[], $4::uuid[], $5::uuid[], $6::text[], $7::uuid[], $8::uuid[])`,
      [rows.map((r) => r.id), rows.map((r) => r.accountId), rows.map((r) => r.displayId), rows.map((r) => r.channelId), rows.map((r) => r.contactId), rows.map((r) => r.status), rows.map((r) => r.assigneeId), rows.map((r) => r.teamId)],
    );
  }

  async setStatus(id: string, status: ConversationStatus, snoozedUntil: Date | null): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.t} SET status = $2, snoozed_until = $3, waiting_since = CASE WHEN $2 = 'resolved' THEN NULL ELSE waiting_since END, updated_at = now() WHERE id = $1`,
      [id, status, status === 'snoozed' ? snoozedUntil : null],
    );
  }

  async assign(id: string, assigneeId: string | null, teamId: string | null): Promise<void> {
    await this.db.affected(`UPDATE ${this.t} SET assignee_id = $2, team_id = $3, updated_at = now() WHERE id = $1`, [id, assigneeId, teamId]);
  }

  async setLabelsAndPriority(id: string, labels: string[] | undefined, priority: Priority | null | undefined): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.t} SET labels = COALESCE($2, labels), priority = CASE WHEN $3 THEN $4 ELSE priority END, updated_at = now() WHERE id = $1`,
      [id, labels ?? null, priority !== undefined, priority ?? null],
    );
  }

  /** An incoming message: the contact waits from now on (unless already waiting). Returns the conversation as it is now. */
  async touchIncoming(id: string): Promise<Conversation> {
    const row = await this.db.one<ConversationRow>(
      `WITH v AS (UPDATE ${this.t} SET waiting_since = COALESCE(waiting_since, now()), last_activity_at = now(), updated_at = now() WHERE id = $1 RETURNING *)
       SELECT ${COLUMNS}, ${CONTACT_COLUMNS} FROM v JOIN ${this.db.table('contacts')} c ON c.id = v.contact_id`,
      [id],
    );
    return toConversation(row!);
  }

  /**
   * A public reply written at `at` reached the provider: the first such one is the first response
   * (a reply that failed never counts), and the contact waits no longer unless it wrote after `at`.
   */
  async recordDeliveredReply(id: string, at: Date): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.t} SET first_reply_created_at = CASE WHEN first_reply_created_at IS NULL OR first_reply_created_at > $2 THEN $2 ELSE first_reply_created_at END,
              waiting_since = CASE WHEN waiting_since <= $2 THEN NULL ELSE waiting_since END, updated_at = now()
        WHERE id = $1`,
      [id, at],
    );
  }

  async touch(id: string): Promise<void> {
    await this.db.affected(`UPDATE ${this.t} SET last_activity_at = now(), updated_at = now() WHERE id = $1`, [id]);
  }

  /** Opens up to `limit` snoozed conversations that are due, with an activity line each; returns them. */
  async wakeSnoozed(limit: number): Promise<Array<{ id: string; accountId: string }>> {
    const woken = await this.db.claimDue<{ id: string; account_id: string; channel_id: string }>({
      table: this.t,
      where: `status = 'snoozed' AND snoozed_until IS NOT NULL AND snoozed_until <= now()`,
      orderBy: 'snoozed_until ASC',
      limit,
      set: `status = 'open', snoozed_until = NULL, updated_at = now()`,
    });
    for (const c of woken) {
      await this.db.affected(
        `INSERT INTO ${this.db.table('messages')} (account_id, conversation_id, channel_id, message_type, content, status) VALUES ($1, $2, $3, 'activity', 'Conversation was reopened: the snooze ended', 'sent')`,
        [c.account_id, c.id, c.channel_id],
      );
    }
    return woken.map((c) => ({ id: c.id, accountId: c.account_id }));
  }
}
