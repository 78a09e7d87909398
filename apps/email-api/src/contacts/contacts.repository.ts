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

const NOW = `date_trunc('milliseconds', now())`;

/**
 * The SET assignments of `subscribed` and the opt-in columns when a request asks for `requested`
 * (an SQL boolean; null: keep the subscription), `confirmed` attests a consent given elsewhere and
 * `doi` says whether the project has double opt-in on. With double opt-in:
 * - a request to subscribe an unsubscribed contact makes it `pending` (still not subscribed) and asks
 *   for a confirmation mail unless one was asked for in the last 24 hours (`confirmation_sent_at`,
 *   set here under the row lock, so that parallel signups ask once);
 * - a subscribed contact stays as it is (a repeated signup never flips a confirmed contact back);
 * - `requested` false unsubscribes and ends a pending opt-in, as without double opt-in.
 * Without double opt-in the subscription changes as asked and a change clears the opt-in state.
 * The expressions read the row's values before the update (`c`).
 */
function optInAssignments(requested: string, confirmed: string, doi: string): string {
  const signup = `(${requested} AND NOT c.subscribed)`;
  const asks = `(${signup} AND ${doi} AND NOT ${confirmed} AND (c.confirmation_sent_at IS NULL OR c.confirmation_sent_at <= now() - interval '1 day'))`;
  return `subscribed = CASE WHEN ${requested} IS NULL THEN c.subscribed WHEN ${requested} AND ${doi} AND NOT ${confirmed} THEN c.subscribed ELSE ${requested} END,
         opt_in = CASE WHEN ${requested} IS NULL OR (${requested} AND c.subscribed) THEN c.opt_in WHEN NOT ${requested} THEN NULL
                       WHEN ${confirmed} THEN 'confirmed' WHEN ${doi} THEN 'pending' ELSE NULL END,
         confirmed_at = CASE WHEN ${signup} AND ${confirmed} THEN ${NOW} ELSE c.confirmed_at END,
         confirmation_sent_at = CASE WHEN ${asks} THEN ${NOW} ELSE c.confirmation_sent_at END,
         confirmation_due_at = CASE WHEN ${asks} THEN ${NOW} WHEN NOT ${requested} THEN NULL ELSE c.confirmation_due_at END`;
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
   * changes only when given (new contacts get `defaultSubscribed`), `data` is merged. In a project
   * with double opt-in the subscription follows the opt-in rules (see `optInAssignments`), decided in
   * the same statement under the row's lock; `confirmed` attests a consent given elsewhere.
   */
  async upsert(
    projectId: string,
    email: string,
    subscribed: boolean | undefined,
    defaultSubscribed: boolean,
    patch: DataPatch,
    confirmed = false,
  ): Promise<UpsertResult> {
    const requested = 'coalesce($4::boolean, $5::boolean)';
    const row = await this.db.one<ContactRow & { inserted: boolean; previous_subscribed: boolean | null }>(
      `WITH previous AS (SELECT subscribed FROM ${this.table} WHERE project_id = $1 AND email = $2),
       settings AS (${this.doubleOptIn('$1')})
       INSERT INTO ${this.table} AS c (id, project_id, email, subscribed, data, opt_in, confirmed_at, confirmation_sent_at, confirmation_due_at)
       SELECT $3, $1, $2, ${requested} AND ($8::boolean OR NOT settings.doi), $6::jsonb,
              CASE WHEN NOT ${requested} THEN NULL WHEN $8::boolean THEN 'confirmed' WHEN settings.doi THEN 'pending' END,
              CASE WHEN ${requested} AND $8::boolean THEN ${NOW} END,
              CASE WHEN ${requested} AND settings.doi AND NOT $8::boolean THEN ${NOW} END,
              CASE WHEN ${requested} AND settings.doi AND NOT $8::boolean THEN ${NOW} END
         FROM settings
       ON CONFLICT (project_id, email) DO UPDATE SET
         ${optInAssignments('$4::boolean', '$8::boolean', '(SELECT doi FROM settings)')},
         data = (c.data || $6::jsonb) - $7::text[],
         updated_at = ${NOW}
       RETURNING c.*, (xmax = 0) AS inserted, (SELECT subscribed FROM previous) AS previous_subscribed`,
      [projectId, email, newId('cnt'), subscribed ?? null, defaultSubscribed, JSON.stringify(patch.set), patch.unset, confirmed],
    );
    return { contact: toContact(row!), isNew: row!.inserted, previousSubscribed: row!.inserted ? null : row!.previous_subscribed };
  }

  /** One row `doi`: whether the project (given as the SQL parameter `project`) has double opt-in on. */
  private doubleOptIn(project: string): string {
    return `SELECT coalesce((SELECT enabled FROM ${this.db.table('opt_in_settings')} WHERE project_id = ${project}::uuid), false) AS doi`;
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
        `WITH previous AS (SELECT subscribed FROM ${this.table} WHERE project_id = $1 AND id = $2 FOR UPDATE),
         settings AS (${this.doubleOptIn('$1')})
         UPDATE ${this.table} AS c SET
           email = coalesce($3, c.email),
           ${optInAssignments('$4::boolean', 'false', '(SELECT doi FROM settings)')},
           data = (c.data || $5::jsonb) - $6::text[],
           updated_at = ${NOW}
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

  /**
   * Sets `subscribed` on the given contacts; returns those whose state changed. In a project with
   * double opt-in, subscribing makes unsubscribed contacts `pending` (a confirmation mail, at most one
   * a day) instead; unsubscribing also ends a pending opt-in.
   */
  async setSubscribed(projectId: string, ids: string[], subscribed: boolean): Promise<Array<{ id: string; email: string }>> {
    const rows = await this.db.rows<{ id: string; email: string; changed: boolean }>(
      `WITH settings AS (${this.doubleOptIn('$1')}),
       target AS (
         SELECT id, subscribed AS previous FROM ${this.table}
          WHERE project_id = $1 AND id = ANY($2::text[]) AND (subscribed <> $3 OR (NOT $3 AND opt_in = 'pending'))
          FOR UPDATE
       )
       UPDATE ${this.table} AS c SET
         ${optInAssignments('$3::boolean', 'false', '(SELECT doi FROM settings)')},
         updated_at = ${NOW}
         FROM target
        WHERE c.id = target.id
       RETURNING c.id, c.email, (c.subscribed <> target.previous) AS changed`,
      [projectId, ids, subscribed],
    );
    return rows.filter((r) => r.changed).map((r) => ({ id: r.id, email: r.email }));
  }

  /**
   * Confirms a pending opt-in: the contact becomes subscribed and `confirmed`. Answers the contact,
   * or null when it is not pending (already confirmed, unsubscribed since, or gone).
   */
  async confirmOptIn(projectId: string, id: string): Promise<Contact | null> {
    const row = await this.db.one<ContactRow>(
      `UPDATE ${this.table} AS c SET subscribed = true, opt_in = 'confirmed', confirmed_at = ${NOW}, confirmation_due_at = NULL, updated_at = ${NOW}
        WHERE c.project_id = $1 AND c.id = $2 AND c.opt_in = 'pending' AND NOT c.subscribed
       RETURNING c.*`,
      [projectId, id],
    );
    return row ? toContact(row) : null;
  }

  /**
   * Takes up to `limit` contacts whose confirmation mail is due, in the open transaction (rows
   * another worker holds are skipped): their due mark is cleared, so that the mail is queued exactly
   * once when the transaction commits. Answers them with their project and the time the mail was
   * asked for; contacts no longer pending come back too (the caller skips them).
   */
  async takeDueConfirmations(limit: number): Promise<Array<Contact & { projectId: string; pending: boolean }>> {
    const rows = await this.db.rows<ContactRow & { pending: boolean }>(
      `UPDATE ${this.table} AS c SET confirmation_due_at = NULL
        WHERE c.id IN (
          SELECT id FROM ${this.table} WHERE confirmation_due_at <= now() ORDER BY confirmation_due_at LIMIT $1 FOR UPDATE SKIP LOCKED
        )
       RETURNING c.*, (c.opt_in = 'pending' AND NOT c.subscribed) AS pending`,
      [limit],
    );
    return rows.map((r) => ({ ...toContact(r), projectId: r.project_id, pending: r.pending }));
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
