import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { OceanTracking, ReferenceKind } from './dcsa-mapping';

export interface CachedTracking {
  result: OceanTracking;
  fetchedAt: Date;
  ageSeconds: number;
}

@Injectable()
export class OceanCacheRepository {
  constructor(private readonly db: Database) {}

  async find(carrier: string, kind: ReferenceKind, reference: string): Promise<CachedTracking | null> {
    const rows = await this.db.prepared<{ result: OceanTracking; fetched_at: Date; age: number }>(
      'logistics_ocean_cache_find',
      `SELECT result, fetched_at, extract(epoch FROM now() - fetched_at)::float8 AS age FROM ${this.db.table('ocean_tracking_cache')}
        WHERE carrier = $1 AND kind = $2 AND reference = $3`,
      [carrier, kind, reference],
    );
    const row = rows[0];
    return row ? { result: row.result, fetchedAt: new Date(row.fetched_at), ageSeconds: Math.max(0, Math.floor(Number(row.age))) } : null;
  }

  /** Same as find, inside the caller's transaction (after its lock). */
  async findLocked(carrier: string, kind: ReferenceKind, reference: string): Promise<CachedTracking | null> {
    const row = await this.db.one<{ result: OceanTracking; fetched_at: Date; age: number }>(
      `SELECT result, fetched_at, extract(epoch FROM now() - fetched_at)::float8 AS age FROM ${this.db.table('ocean_tracking_cache')}
        WHERE carrier = $1 AND kind = $2 AND reference = $3`,
      [carrier, kind, reference],
    );
    return row ? { result: row.result, fetchedAt: new Date(row.fetched_at), ageSeconds: Math.max(0, Math.floor(Number(row.age))) } : null;
  }

  async store(carrier: string, kind: ReferenceKind, reference: string, result: OceanTracking): Promise<Date> {
    const row = await this.db.one<{ fetched_at: Date }>(
      `INSERT INTO ${this.db.table('ocean_tracking_cache')} (carrier, kind, reference, result, fetched_at) VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (carrier, kind, reference) DO UPDATE SET result = EXCLUDED.result, fetched_at = now() RETURNING fetched_at`,
      [carrier, kind, reference, JSON.stringify(result)],
    );
    return new Date(row!.fetched_at);
  }
}
