import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import { newId } from '../common/ids';
import type { Keyset } from '../common/pagination';
import { toContact, type Contact, type ContactRow, type DataPatch } from './contact';

export interface UpsertResult {
  contact: Contact;
  isNew: boolean;
  /** The subscription state before the change (null for a new contact). */
  previousSubscribed: boolean | null;
}

export interface FieldStat {
  field: string;
  type: string;
  count: number;
  /** Of `count`, string values that look like ISO dates. */
  dates: number;
}

/** `%` and `_` in a search string match themselves. */
function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

@Injectable()
export class ContactsRepository {
  constructor(private readonly db: Database) {}

  private get table(): string {
    return this.db.table('contacts');
  }

  /**
   * Creates the contact or updates it by (project, email), atomically (`ON CONFLICT`): `subscribed`
   * changes only when given (new contacts get `defaultSubscribed`), `data` is merged.
   */
  async upsert(
    projectId: string,
    email: string,
    subscribed: boolean | undefined,
    defaultSubscribed: boolean,
    patch: DataPatch,
  ): Promise<UpsertResult> {
    const row = await this.db.one<ContactRow & { inserted: boolean; previous_subscribed: boolean | null }>(
      `WITH previous AS (SELECT subscribed FROM ${this.table} WHERE project_id = $1 AND email = $2)
       INSERT INTO ${this.table} AS c (id, project_id, email, subscribed, data)
       VALUES ($3, $1, $2, coalesce($4::boolean, $5::boolean), $6::jsonb)
       ON CONFLICT (project_id, email) DO UPDATE SET
         subscribed = coalesce($4::boolean, c.subscribed),
         data = (c.data || $6::jsonb) - $7::text[],
         updated_at = date_trunc('milliseconds', now())
       RETURNING c.*, (xmax = 0) AS inserted, (SELECT subscribed FROM previous) AS previous_subscribed`,
      [projectId, email, newId('cnt'), subscribed ?? null, defaultSubscribed, JSON.stringify(patch.set), patch.unset],
    );
    return { contact: toContact(row!), isNew: row!.inserted, previousSubscribed: row!.inserted ? null : row!.previous_subscribed };
  }

  async findById(projectId: string, id: string): Promise<Contact | null> {
    const row = await this.db.one<ContactRow>(`SELECT * FROM ${this.table} WHERE project_id = $1 AND id = $2`, [projectId, id]);
    return row ? toContact(row) : null;
  }

  /** A contact by id in any project (unsubscribe links carry only the contact id). */
  async findAnyById(id: string): Promise<(Contact & { projectId: string }) | null> {
    const row = await this.db.one<ContactRow>(`SELECT * FROM ${this.table} WHERE id = $1`, [id]);
    return row ? { ...toContact(row), projectId: row.project_id } : null;
  }

  async findByEmail(projectId: string, email: string): Promise<Contact | null> {
    const row = await this.db.one<ContactRow>(`SELECT * FROM ${this.table} WHERE project_id = $1 AND email = $2`, [projectId, email]);
    return row ? toContact(row) : null;
  }

  /** `limit + 1` contacts after the keyset, newest first, optionally filtered by email substring. */
  async page(projectId: string, limit: number, after: Keyset | null, search?: string): Promise<Contact[]> {
    const params: unknown[] = [projectId];
    const where = ['project_id = $1'];
    if (search) {
      params.push(likePattern(search.toLowerCase()));
      where.push(`email LIKE $${params.length}`);
    }
    if (after) {
      params.push(after.createdAt, after.id);
      where.push(`(created_at, id) < ($${params.length - 1}, $${params.length})`);
    }
    params.push(limit + 1);
    const rows = await this.db.rows<ContactRow>(
      `SELECT * FROM ${this.table} WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map(toContact);
  }

  async count(projectId: string, search?: string): Promise<number> {
    const params: unknown[] = [projectId];
    let where = 'project_id = $1';
    if (search) {
      params.push(likePattern(search.toLowerCase()));
      where += ' AND email LIKE $2';
    }
    const row = await this.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.table} WHERE ${where}`, params);
    return row?.n ?? 0;
  }

  /**
   * Updates email, subscription and data of one contact. Returns the contact and the previous
   * subscription state, null when it does not exist, or 'email-taken'.
   */
  async update(
    projectId: string,
    id: string,
    changes: { email?: string; subscribed?: boolean; patch: DataPatch },
  ): Promise<{ contact: Contact; previousSubscribed: boolean } | null | 'email-taken'> {
    try {
      const row = await this.db.one<ContactRow & { previous_subscribed: boolean }>(
        `WITH previous AS (SELECT subscribed FROM ${this.table} WHERE project_id = $1 AND id = $2 FOR UPDATE)
         UPDATE ${this.table} AS c SET
           email = coalesce($3, c.email),
           subscribed = coalesce($4::boolean, c.subscribed),
           data = (c.data || $5::jsonb) - $6::text[],
           updated_at = date_trunc('milliseconds', now())
         WHERE c.project_id = $1 AND c.id = $2
         RETURNING c.*, (SELECT subscribed FROM previous) AS previous_subscribed`,
        [projectId, id, changes.email ?? null, changes.subscribed ?? null, JSON.stringify(changes.patch.set), changes.patch.unset],
      );
      return row ? { contact: toContact(row), previousSubscribed: row.previous_subscribed } : null;
    } catch (err) {
      if ((err as { code?: string }).code === '23505') return 'email-taken';
      throw err;
    }
  }

  async delete(projectId: string, id: string): Promise<boolean> {
    return (await this.db.affected(`DELETE FROM ${this.table} WHERE project_id = $1 AND id = $2`, [projectId, id])) > 0;
  }

  async findByEmails(projectId: string, emails: string[]): Promise<Array<Pick<Contact, 'id' | 'email' | 'subscribed'>>> {
    return this.db.rows(`SELECT id, email, subscribed FROM ${this.table} WHERE project_id = $1 AND email = ANY($2::text[]) ORDER BY email`, [projectId, emails]);
  }

  /** Existing ids of the project among `ids`. */
  async existingIds(projectId: string, ids: string[]): Promise<string[]> {
    const rows = await this.db.rows<{ id: string }>(`SELECT id FROM ${this.table} WHERE project_id = $1 AND id = ANY($2::text[])`, [projectId, ids]);
    return rows.map((r) => r.id);
  }

  /** Sets `subscribed` on the given contacts; returns those whose state changed. */
  async setSubscribed(projectId: string, ids: string[], subscribed: boolean): Promise<Array<{ id: string; email: string }>> {
    return this.db.rows(
      `UPDATE ${this.table} SET subscribed = $3, updated_at = date_trunc('milliseconds', now())
        WHERE project_id = $1 AND id = ANY($2::text[]) AND subscribed <> $3 RETURNING id, email`,
      [projectId, ids, subscribed],
    );
  }

  async deleteMany(projectId: string, ids: string[]): Promise<number> {
    return this.db.affected(`DELETE FROM ${this.table} WHERE project_id = $1 AND id = ANY($2::text[])`, [projectId, ids]);
  }

  /** Custom fields: per key and JSON type, how many contacts hold it. */
  async fieldStats(projectId: string): Promise<FieldStat[]> {
    return this.db.rows<FieldStat>(
      `SELECT f.key AS field, jsonb_typeof(f.value) AS type, count(*)::int AS count,
              (count(*) FILTER (WHERE jsonb_typeof(f.value) = 'string' AND (f.value #>> '{}') ~ '^\\d{4}-\\d{2}-\\d{2}([T ][0-9:.]+(Z|[+-]\\d{2}:?\\d{2})?)?$'))::int AS dates
         FROM ${this.table} c CROSS JOIN LATERAL jsonb_each(c.data) f
        WHERE c.project_id = $1
        GROUP BY f.key, jsonb_typeof(f.value)`,
      [projectId],
    );
  }

  /** Distinct values of a custom field with how many contacts hold each, most frequent first. */
  async fieldValues(projectId: string, field: string, limit: number): Promise<Array<{ value: unknown; count: number }>> {
    return this.db.rows(
      `SELECT data -> $2 AS value, count(*)::int AS count FROM ${this.table}
        WHERE project_id = $1 AND data ? $2 GROUP BY data -> $2 ORDER BY count(*) DESC, (data -> $2)::text ASC LIMIT $3`,
      [projectId, field, limit],
    );
  }

  async countWithField(projectId: string, field: string): Promise<number> {
    const row = await this.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.table} WHERE project_id = $1 AND data ? $2`, [projectId, field]);
    return row?.n ?? 0;
  }

  /** Removes the field from every contact of the project; returns how many changed. */
  async deleteField(projectId: string, field: string): Promise<number> {
    return this.db.affected(
      `UPDATE ${this.table} SET data = data - $2, updated_at = date_trunc('milliseconds', now()) WHERE project_id = $1 AND data ? $2`,
      [projectId, field],
    );
  }
}
