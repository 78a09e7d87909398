import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';

export interface CannedResponse {
  id: string;
  accountId: string;
  shortCode: string;
  content: string;
  createdAt: Date;
  updatedAt: Date;
}

interface Row {
  id: string;
  account_id: string;
  short_code: string;
  content: string;
  created_at: Date;
  updated_at: Date;
}

const toCanned = (r: Row): CannedResponse => ({ id: r.id, accountId: r.account_id, shortCode: r.short_code, content: r.content, createdAt: r.created_at, updatedAt: r.updated_at });
const UNIQUE_VIOLATION = '23505';

@Injectable()
export class CannedResponsesRepository {
  constructor(private readonly db: Database) {}

  private get t(): string {
    return this.db.table('canned_responses');
  }

  /** Short codes starting with `q`, or content holding it (case-insensitive), short code order. */
  async list(accountId: string, q: string | undefined, limit: number, offset: number): Promise<{ items: CannedResponse[]; total: number }> {
    const pattern = q ? q.replace(/[\\%_]/g, (c) => `\\${c}`) : null;
    const rows = await this.db.rows<Row & { total: string }>(
      `SELECT *, count(*) OVER () AS total FROM ${this.t}
        WHERE account_id = $1 AND ($2::text IS NULL OR short_code ILIKE $2 || '%' OR content ILIKE '%' || $2 || '%')
        ORDER BY lower(short_code) LIMIT $3 OFFSET $4`,
      [accountId, pattern, limit, offset],
    );
    const total = rows.length
      ? Number(rows[0].total)
      : Number((await this.db.one<{ n: string }>(`SELECT count(*) AS n FROM ${this.t} WHERE account_id = $1 AND ($2::text IS NULL OR short_code ILIKE $2 || '%' OR content ILIKE '%' || $2 || '%')`, [accountId, pattern]))!.n);
    return { items: rows.map(toCanned), total };
  }

  async find(accountId: string, id: string): Promise<CannedResponse | null> {
    const row = await this.db.one<Row>(`SELECT * FROM ${this.t} WHERE account_id = $1 AND id = $2`, [accountId, id]);
    return row ? toCanned(row) : null;
  }

  async findByShortCode(accountId: string, shortCode: string): Promise<CannedResponse | null> {
    const row = await this.db.one<Row>(`SELECT * FROM ${this.t} WHERE account_id = $1 AND lower(short_code) = lower($2)`, [accountId, shortCode]);
    return row ? toCanned(row) : null;
  }

  /** The ids of `ids` that are not canned responses of the account. */
  async unknownIds(accountId: string, ids: string[]): Promise<string[]> {
    if (!ids.length) return [];
    const rows = await this.db.rows<{ id: string }>(`SELECT id FROM ${this.t} WHERE account_id = $1 AND id = ANY($2::uuid[])`, [accountId, ids]);
    const known = new Set(rows.map((r) => r.id));
    return ids.filter((id) => !known.has(id));
  }

  /** null when the short code is taken. */
  async insert(accountId: string, shortCode: string, content: string): Promise<CannedResponse | null> {
    const row = await this.db.one<Row>(`INSERT INTO ${this.t} (account_id, short_code, content) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING *`, [accountId, shortCode, content]);
    return row ? toCanned(row) : null;
  }

  /** null when missing; 'taken' when the new short code is another's. */
  async update(accountId: string, id: string, patch: { shortCode?: string; content?: string }): Promise<CannedResponse | null | 'taken'> {
    try {
      const row = await this.db.one<Row>(
        `UPDATE ${this.t} SET short_code = COALESCE($3, short_code), content = COALESCE($4, content), updated_at = now() WHERE account_id = $1 AND id = $2 RETURNING *`,
        [accountId, id, patch.shortCode ?? null, patch.content ?? null],
      );
      return row ? toCanned(row) : null;
    } catch (err) {
      if ((err as { code?: string }).code === UNIQUE_VIOLATION) return 'taken';
      throw err;
    }
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    return (await this.db.affected(`DELETE FROM ${this.t} WHERE account_id = $1 AND id = $2`, [accountId, id])) === 1;
  }
}
