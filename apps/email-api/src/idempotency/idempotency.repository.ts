import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';

export interface StoredResponse {
  request_hash: string;
  status_code: number | null;
  response: unknown;
}

/** Keys live 24 hours; an older row with the same key is taken over by the new request. */
const TTL = `interval '24 hours'`;

@Injectable()
export class IdempotencyRepository {
  constructor(private readonly db: Database) {}

  /**
   * Claims the key for this request inside the open transaction. Returns null when claimed (go
   * ahead), or the stored row of the earlier request. A concurrent request with the same key waits
   * here until the first one's transaction ends.
   */
  async claim(projectId: string, scope: string, key: string, requestHash: string): Promise<StoredResponse | null> {
    const t = this.db.table('idempotency_keys');
    const claimed = await this.db.rows(
      `INSERT INTO ${t} AS k (project_id, scope, key, request_hash) VALUES ($1, $2, $3, $4)
       ON CONFLICT (project_id, scope, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, status_code = NULL, response = NULL, created_at = now()
         WHERE k.created_at < now() - ${TTL}
       RETURNING key`,
      [projectId, scope, key, requestHash],
    );
    if (claimed.length) return null;
    return this.db.one<StoredResponse>(`SELECT request_hash, status_code, response FROM ${t} WHERE project_id = $1 AND scope = $2 AND key = $3`, [projectId, scope, key]);
  }

  async store(projectId: string, scope: string, key: string, statusCode: number, response: unknown): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.db.table('idempotency_keys')} SET status_code = $4, response = $5::jsonb WHERE project_id = $1 AND scope = $2 AND key = $3`,
      [projectId, scope, key, statusCode, JSON.stringify(response)],
    );
  }

  /** Deletes expired keys; returns how many. */
  async prune(): Promise<number> {
    return this.db.affected(`DELETE FROM ${this.db.table('idempotency_keys')} WHERE created_at < now() - ${TTL}`);
  }
}
