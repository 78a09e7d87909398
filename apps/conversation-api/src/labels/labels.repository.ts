import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';

export interface Label {
  id: string;
  accountId: string;
  name: string;
  description: string | null;
  color: string;
  createdAt: Date;
  updatedAt: Date;
}

interface Row {
  id: string;
  account_id: string;
  name: string;
  description: string | null;
  color: string;
  created_at: Date;
  updated_at: Date;
}

const toLabel = (r: Row): Label => ({ id: r.id, accountId: r.account_id, name: r.name, description: r.description, color: r.color, createdAt: r.created_at, updatedAt: r.updated_at });
const UNIQUE_VIOLATION = '23505';

@Injectable()
export class LabelsRepository {
  constructor(private readonly db: Database) {}

  private get t(): string {
    return this.db.table('labels');
  }

  async list(accountId: string): Promise<Label[]> {
    return (await this.db.rows<Row>(`SELECT * FROM ${this.t} WHERE account_id = $1 ORDER BY lower(name)`, [accountId])).map(toLabel);
  }

  async find(accountId: string, id: string): Promise<Label | null> {
    const row = await this.db.one<Row>(`SELECT * FROM ${this.t} WHERE account_id = $1 AND id = $2`, [accountId, id]);
    return row ? toLabel(row) : null;
  }

  /** The names of `names` (compared without case) that are not in the catalogue. */
  async unknownNames(accountId: string, names: string[]): Promise<string[]> {
    if (!names.length) return [];
    const rows = await this.db.rows<{ name: string }>(`SELECT lower(name) AS name FROM ${this.t} WHERE account_id = $1 AND lower(name) = ANY($2::text[])`, [accountId, names.map((n) => n.toLowerCase())]);
    const known = new Set(rows.map((r) => r.name));
    return names.filter((n) => !known.has(n.toLowerCase()));
  }

  /** null when the name is taken. */
  async insert(accountId: string, l: { name: string; description: string | null; color: string }): Promise<Label | null> {
    const row = await this.db.one<Row>(
      `INSERT INTO ${this.t} (account_id, name, description, color) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING *`,
      [accountId, l.name, l.description, l.color],
    );
    return row ? toLabel(row) : null;
  }

  /** null when missing; 'taken' when the new name is another label's. */
  async update(accountId: string, id: string, patch: { name?: string; description?: string | null; color?: string }): Promise<Label | null | 'taken'> {
    try {
      const row = await this.db.one<Row>(
        `UPDATE ${this.t} SET name = COALESCE($3, name), description = CASE WHEN $4::boolean THEN $5 ELSE description END, color = COALESCE($6, color), updated_at = now()
          WHERE account_id = $1 AND id = $2 RETURNING *`,
        [accountId, id, patch.name ?? null, patch.description !== undefined, patch.description ?? null, patch.color ?? null],
      );
      return row ? toLabel(row) : null;
    } catch (err) {
      if ((err as { code?: string }).code === UNIQUE_VIOLATION) return 'taken';
      throw err;
    }
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    return (await this.db.affected(`DELETE FROM ${this.t} WHERE account_id = $1 AND id = $2`, [accountId, id])) === 1;
  }
}
