import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { ImportContactDto } from './dto/contact.dto';
import { ContactEntity } from './entities/contact.entity';

export interface ContactQuery {
  search?: string;
  tag?: string;
  beforeId?: number;
  limit: number;
}

@Injectable()
export class ContactsRepository {
  constructor(private readonly db: Database) {}

  private get repo() {
    return this.db.repository(ContactEntity);
  }

  private get s(): string {
    return this.db.schema;
  }

  /** Newest first (id descending); one row more than `limit` tells whether a next page exists. */
  list(accountId: number, q: ContactQuery): Promise<ContactEntity[]> {
    const qb = this.repo
      .createQueryBuilder('c')
      .where('c.account_id = :accountId', { accountId })
      .orderBy('c.id', 'DESC')
      .limit(q.limit + 1);
    if (q.search) {
      const like = `%${q.search.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
      qb.andWhere('(c.username ILIKE :like OR c.name ILIKE :like OR c.email ILIKE :like OR c.ig_id ILIKE :like)', { like });
    }
    if (q.tag) qb.andWhere('c.tags @> :tag::jsonb', { tag: JSON.stringify([q.tag]) });
    if (q.beforeId !== undefined) qb.andWhere('c.id < :beforeId', { beforeId: q.beforeId });
    return qb.getMany();
  }

  find(accountId: number, igId: string): Promise<ContactEntity | null> {
    return this.repo.findOne({ where: { account_id: accountId, ig_id: igId } });
  }

  async save(c: ContactEntity): Promise<ContactEntity> {
    return this.repo.save(c);
  }

  count(accountId: number): Promise<number> {
    return this.repo.count({ where: { account_id: accountId } });
  }

  /**
   * Upserts the person on an inbound: counts comments or messages, stamps first/last seen, and
   * `last_inbound_at` (the 24-hour messaging window) for messages and taps.
   */
  /** Sets or clears the person's opt-out (the contact exists: the message was counted first). */
  async setOptedOut(accountId: number, igId: string, at: Date | null): Promise<void> {
    await this.db.affected(`UPDATE ${this.s}.contacts SET opted_out_at = $3, updated_at = now() WHERE account_id = $1 AND ig_id = $2`, [accountId, igId, at]);
  }

  /** Pauses automation for the person's conversation until `until` (a later pause never shortens an earlier one). */
  async pauseUntil(accountId: number, igId: string, until: Date): Promise<void> {
    await this.db.rows(
      `INSERT INTO ${this.s}.contacts (account_id, ig_id, first_seen_at, last_seen_at, paused_until) VALUES ($1, $2, now(), now(), $3)
       ON CONFLICT (account_id, ig_id) DO UPDATE SET paused_until = GREATEST(${this.s}.contacts.paused_until, EXCLUDED.paused_until), updated_at = now()`,
      [accountId, igId, until],
    );
  }

  async touch(accountId: number, igId: string, username: string | null, kind: 'comment' | 'message' | 'tap', at: Date): Promise<void> {
    const comment = kind === 'comment' ? 1 : 0;
    const dm = kind === 'message' ? 1 : 0;
    const inbound = kind === 'comment' ? null : at;
    await this.db.rows(
      `INSERT INTO ${this.s}.contacts (account_id, ig_id, username, comment_count, dm_count, first_seen_at, last_seen_at, last_inbound_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6, $7)
       ON CONFLICT (account_id, ig_id) DO UPDATE SET
         username = COALESCE(EXCLUDED.username, ${this.s}.contacts.username),
         comment_count = ${this.s}.contacts.comment_count + $4,
         dm_count = ${this.s}.contacts.dm_count + $5,
         last_seen_at = GREATEST(${this.s}.contacts.last_seen_at, $6),
         last_inbound_at = CASE WHEN $7::timestamptz IS NULL THEN ${this.s}.contacts.last_inbound_at
                                ELSE GREATEST(COALESCE(${this.s}.contacts.last_inbound_at, $7), $7) END,
         updated_at = now()`,
      [accountId, igId, username, comment, dm, at, inbound],
    );
  }

  /** Adds tags (set union); `source` is written when given. */
  async tag(accountId: number, igId: string, tags: string[], source?: string): Promise<void> {
    if (tags.length === 0 && !source) return;
    await this.db.affected(
      `UPDATE ${this.s}.contacts SET
         tags = (SELECT COALESCE(jsonb_agg(DISTINCT t), '[]'::jsonb) FROM jsonb_array_elements_text(tags || $3::jsonb) AS t),
         source = COALESCE($4, source), updated_at = now()
       WHERE account_id = $1 AND ig_id = $2`,
      [accountId, igId, JSON.stringify(tags), source ?? null],
    );
  }

  async setEmail(accountId: number, igId: string, email: string): Promise<void> {
    await this.db.affected(`UPDATE ${this.s}.contacts SET email = $3, updated_at = now() WHERE account_id = $1 AND ig_id = $2`, [accountId, igId, email]);
  }

  async setFollows(accountId: number, igId: string, follows: boolean | null, username?: string | null): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.s}.contacts SET follows = $3, username = COALESCE($4, username), updated_at = now() WHERE account_id = $1 AND ig_id = $2`,
      [accountId, igId, follows === null ? null : follows ? 1 : 0, username ?? null],
    );
  }

  /**
   * Imported contacts: inserted, or merged into an existing one (known values win, tags are united,
   * imported_from and source are kept when already set). Returns how many rows were new.
   */
  async upsertImported(accountId: number, tool: string, contacts: ImportContactDto[]): Promise<{ created: number; updated: number }> {
    let created = 0;
    const s = this.s;
    for (const c of contacts) {
      const row = await this.db.one<{ inserted: boolean }>(
        `INSERT INTO ${s}.contacts (account_id, ig_id, username, name, email, tags, notes, follows, source, imported_from)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10)
         ON CONFLICT (account_id, ig_id) DO UPDATE SET
           username = COALESCE(${s}.contacts.username, EXCLUDED.username),
           name = COALESCE(${s}.contacts.name, EXCLUDED.name),
           email = COALESCE(${s}.contacts.email, EXCLUDED.email),
           notes = COALESCE(${s}.contacts.notes, EXCLUDED.notes),
           follows = COALESCE(${s}.contacts.follows, EXCLUDED.follows),
           tags = (SELECT COALESCE(jsonb_agg(DISTINCT t), '[]'::jsonb) FROM jsonb_array_elements_text(${s}.contacts.tags || EXCLUDED.tags) AS t),
           source = COALESCE(${s}.contacts.source, EXCLUDED.source),
           imported_from = COALESCE(${s}.contacts.imported_from, EXCLUDED.imported_from),
           updated_at = now()
         RETURNING (xmax = 0) AS inserted`,
        [
          accountId,
          c.ig_id,
          c.username ?? null,
          c.name ?? null,
          c.email ?? null,
          JSON.stringify([...new Set(c.tags ?? [])]),
          c.notes ?? null,
          c.follows ?? null,
          `import:${tool}`,
          tool,
        ],
      );
      if (row?.inserted) created += 1;
    }
    return { created, updated: contacts.length - created };
  }
}
