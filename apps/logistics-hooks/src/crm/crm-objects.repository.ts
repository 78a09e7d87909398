import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { CrmObject } from './crm-stats';

export const CRM_KINDS = ['accounts', 'contacts', 'deals', 'leads', 'tasks'] as const;
export type CrmKind = (typeof CRM_KINDS)[number];

@Injectable()
export class CrmObjectsRepository {
  constructor(private readonly db: Database) {}

  /** Inserts or merges (shallow: the pushed fields replace the stored ones) each object; returns how many rows were written. */
  async upsert(kind: CrmKind, objects: CrmObject[]): Promise<number> {
    if (objects.length === 0) return 0;
    const rows = await this.db.rows<{ id: string }>(
      `INSERT INTO ${this.db.table('crm_objects')} AS o (kind, id, data)
       SELECT $1, x.id, x.data FROM jsonb_to_recordset($2::jsonb) AS x(id text, data jsonb)
       ON CONFLICT (kind, id) DO UPDATE SET data = o.data || EXCLUDED.data, updated_at = now()
       RETURNING o.id`,
      [kind, JSON.stringify(objects.map((o) => ({ id: o.id, data: o })))],
    );
    return rows.length;
  }

  async remove(kind: CrmKind, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const rows = await this.db.rows<{ id: string }>(`DELETE FROM ${this.db.table('crm_objects')} WHERE kind = $1 AND id = ANY($2::text[]) RETURNING id`, [kind, ids]);
    return rows.length;
  }

  async list(kind: CrmKind, limit: number, offset: number): Promise<CrmObject[]> {
    const rows = await this.db.rows<{ data: CrmObject }>(
      `SELECT data FROM ${this.db.table('crm_objects')} WHERE kind = $1 ORDER BY created_at, id LIMIT $2 OFFSET $3`,
      [kind, limit, offset],
    );
    return rows.map((r) => r.data);
  }

  async all(kind: CrmKind): Promise<CrmObject[]> {
    const rows = await this.db.rows<{ data: CrmObject }>(`SELECT data FROM ${this.db.table('crm_objects')} WHERE kind = $1`, [kind]);
    return rows.map((r) => r.data);
  }

  async counts(): Promise<Record<CrmKind, number>> {
    const rows = await this.db.rows<{ kind: CrmKind; n: string }>(`SELECT kind, count(*) AS n FROM ${this.db.table('crm_objects')} GROUP BY kind`);
    const counts = Object.fromEntries(CRM_KINDS.map((k) => [k, 0])) as Record<CrmKind, number>;
    for (const r of rows) counts[r.kind] = Number(r.n);
    return counts;
  }
}
