import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { schemaOfDataSource } from '@platform/database';
import { DataSource, type EntityManager } from 'typeorm';
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
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Newest first (id descending); one row more than `limit` tells whether a next page exists. */
  list(accountId: number, q: ContactQuery): Promise<ContactEntity[]> {
    const qb = this.ds
      .getRepository(ContactEntity)
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
    return this.ds.getRepository(ContactEntity).findOne({ where: { account_id: accountId, ig_id: igId } });
  }

  async save(c: ContactEntity): Promise<ContactEntity> {
    return this.ds.getRepository(ContactEntity).save(c);
  }

  count(accountId: number): Promise<number> {
    return this.ds.getRepository(ContactEntity).count({ where: { account_id: accountId } });
  }

  /**
   * Imported contacts: inserted, or merged into an existing one (known values win, tags are united,
   * imported_from and source are kept when already set). Returns how many rows were new.
   */
  async upsertImported(m: EntityManager, accountId: number, tool: string, contacts: ImportContactDto[]): Promise<{ created: number; updated: number }> {
    let created = 0;
    const s = schemaOfDataSource(this.ds);
    for (const c of contacts) {
      const rows: Array<{ inserted: boolean }> = await m.query(
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
      if (rows[0]?.inserted) created += 1;
    }
    return { created, updated: contacts.length - created };
  }
}
