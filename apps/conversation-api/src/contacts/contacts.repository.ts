import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';

export interface Contact {
  id: string;
  accountId: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  identifier: string | null;
  customAttributes: Record<string, unknown>;
  additionalAttributes: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

interface Row {
  id: string;
  account_id: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  identifier: string | null;
  custom_attributes: Record<string, unknown>;
  additional_attributes: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

const toContact = (r: Row): Contact => ({
  id: r.id,
  accountId: r.account_id,
  name: r.name,
  email: r.email,
  phone: r.phone,
  identifier: r.identifier,
  customAttributes: r.custom_attributes,
  additionalAttributes: r.additional_attributes,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** `%` and `_` of a search text match themselves. */
const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

@Injectable()
export class ContactsRepository {
  constructor(private readonly db: Database) {}

  private get t(): string {
    return this.db.table('contacts');
  }

  /** Newest first; `q` matches name, email, phone, identifier and custom attribute values (case-insensitive). */
  async list(accountId: string, q: string | undefined, limit: number, offset: number): Promise<{ items: Contact[]; total: number }> {
    const params: unknown[] = [accountId];
    let where = 'account_id = $1';
    if (q) {
      params.push(likePattern(q));
      where += ` AND (name ILIKE $2 OR email ILIKE $2 OR phone ILIKE $2 OR identifier ILIKE $2
                  OR EXISTS (SELECT 1 FROM jsonb_each_text(custom_attributes) a WHERE a.value ILIKE $2))`;
    }
    const rows = await this.db.rows<Row & { total: number }>(
      `SELECT *, count(*) OVER ()::int AS total FROM ${this.t} WHERE ${where} ORDER BY created_at DESC, id LIMIT ${limit} OFFSET ${offset}`,
      params,
    );
    let total = rows[0]?.total ?? 0;
    if (!rows.length && offset > 0) total = (await this.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.t} WHERE ${where}`, params))?.n ?? 0;
    return { items: rows.map(toContact), total };
  }

  async find(accountId: string, id: string): Promise<Contact | null> {
    const row = await this.db.one<Row>(`SELECT * FROM ${this.t} WHERE account_id = $1 AND id = $2`, [accountId, id]);
    return row ? toContact(row) : null;
  }

  /**
   * The contact behind a channel's sender id (a WhatsApp `wa_id`, an email address), created with
   * `name`, `phone` and `email` when new; an email sender is first looked up among the account's
   * contacts by that email (one person writing through several channels stays one contact).
   */
  async findOrCreateBySource(accountId: string, channelId: string, sourceId: string, profile: { name: string | null; phone?: string | null; email?: string | null }): Promise<{ contact: Contact; created: boolean }> {
    const existing = await this.db.one<Row>(
      `SELECT c.* FROM ${this.db.table('contact_inboxes')} ci JOIN ${this.t} c ON c.id = ci.contact_id WHERE ci.channel_id = $1 AND ci.source_id = $2`,
      [channelId, sourceId],
    );
    if (existing) {
      // The profile name may arrive later or change: keep it current when the contact has none.
      if (!existing.name && profile.name) {
        await this.db.affected(`UPDATE ${this.t} SET name = $2, updated_at = now() WHERE id = $1`, [existing.id, profile.name]);
        existing.name = profile.name;
      }
      return { contact: toContact(existing), created: false };
    }
    if (profile.email) {
      const known = await this.db.one<Row>(`SELECT * FROM ${this.t} WHERE account_id = $1 AND lower(email) = lower($2) ORDER BY created_at LIMIT 1`, [accountId, profile.email]);
      if (known) {
        await this.db.affected(`INSERT INTO ${this.db.table('contact_inboxes')} (contact_id, channel_id, source_id) VALUES ($1, $2, $3)`, [known.id, channelId, sourceId]);
        return { contact: toContact(known), created: false };
      }
    }
    const row = await this.db.one<Row>(`INSERT INTO ${this.t} (account_id, name, phone, email) VALUES ($1, $2, $3, $4) RETURNING *`, [accountId, profile.name, profile.phone ?? null, profile.email ?? null]);
    await this.db.affected(`INSERT INTO ${this.db.table('contact_inboxes')} (contact_id, channel_id, source_id) VALUES ($1, $2, $3)`, [row!.id, channelId, sourceId]);
    return { contact: toContact(row!), created: true };
  }

  /**
   * `findOrCreateBySource` of several senders of one channel (distinct sender ids) in one statement,
   * by sender id, for channels whose senders are known by their id alone (no lookup by email): new
   * ones are created with the id, name and phone given.
   */
  async findOrCreateManyBySource(accountId: string, channelId: string, senders: Array<{ sourceId: string; newId: string; name: string | null; phone: string | null }>): Promise<Map<string, { contact: Contact; created: boolean }>> {
    if (!senders.length) return new Map();
    const rows = await this.db.rows<Row & { source_id: string; created: boolean }>(
      `WITH input AS (SELECT * FROM unnest($3::text[], $4::uuid[], $5::text[], $6::text[]) AS i(source_id, new_id, name, phone)),
            known AS (SELECT i.source_id, c.* FROM input i JOIN ${this.db.table('contact_inboxes')} ci ON ci.channel_id = $2 AND ci.source_id = i.source_id JOIN ${this.t} c ON c.id = ci.contact_id),
            created AS (INSERT INTO ${this.t} (id, account_id, name, phone) SELECT new_id, $1, name, phone FROM input WHERE source_id NOT IN (SELECT source_id FROM known) RETURNING *),
            linked AS (INSERT INTO ${this.db.table('contact_inboxes')} (contact_id, channel_id, source_id) SELECT i.new_id, $2, i.source_id FROM input i JOIN created c ON c.id = i.new_id)
       SELECT k.*, false AS created FROM known k
       UNION ALL SELECT i.source_id, c.*, true AS created FROM created c JOIN input i ON i.new_id = c.id`,
      [accountId, channelId, senders.map((s) => s.sourceId), senders.map((s) => s.newId), senders.map((s) => s.name), senders.map((s) => s.phone)],
    );
    return new Map(rows.map((r) => [r.source_id, { contact: toContact(r), created: r.created }]));
  }

  /** The sender id of the contact on a channel (where replies go). */
  async sourceIdOn(contactId: string, channelId: string): Promise<string | null> {
    const row = await this.db.one<{ source_id: string }>(`SELECT source_id FROM ${this.db.table('contact_inboxes')} WHERE contact_id = $1 AND channel_id = $2`, [contactId, channelId]);
    return row?.source_id ?? null;
  }

  async update(accountId: string, id: string, patch: { name?: string | null; email?: string | null; phone?: string | null }): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.t} SET name = CASE WHEN $3 THEN $4 ELSE name END, email = CASE WHEN $5 THEN $6 ELSE email END,
              phone = CASE WHEN $7 THEN $8 ELSE phone END, updated_at = now()
        WHERE account_id = $1 AND id = $2`,
      [accountId, id, patch.name !== undefined, patch.name ?? null, patch.email !== undefined, patch.email ?? null, patch.phone !== undefined, patch.phone ?? null],
    );
  }

  /** Merges the patch into custom_attributes; null values remove their key. */
  async mergeAttributes(accountId: string, id: string, patch: Record<string, unknown>): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.t} SET custom_attributes = jsonb_strip_nulls(custom_attributes || $3::jsonb), updated_at = now() WHERE account_id = $1 AND id = $2`,
      [accountId, id, JSON.stringify(patch)],
    );
  }
}
