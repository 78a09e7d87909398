import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';

export interface UploadRow {
  id: string;
  project_id: string;
  key: string;
  content_type: string;
  size: number;
  width: number;
  height: number;
  sha256: string;
  created_at: Date;
}

/** The uploads a project owns, one row per (project, key): the same image twice is one row. */
@Injectable()
export class UploadsRepository {
  constructor(private readonly db: Database) {}

  private get table(): string {
    return this.db.table('uploads');
  }

  /** Records the upload, or returns the project's row for the same key (the first upload's id and date). */
  async record(projectId: string, u: { key: string; contentType: string; size: number; width: number; height: number; sha256: string }): Promise<UploadRow> {
    const inserted = await this.db.one<UploadRow>(
      `INSERT INTO ${this.table} (project_id, key, content_type, size, width, height, sha256) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (project_id, key) DO NOTHING RETURNING *`,
      [projectId, u.key, u.contentType, u.size, u.width, u.height, u.sha256],
    );
    return inserted ?? (await this.db.one<UploadRow>(`SELECT * FROM ${this.table} WHERE project_id = $1 AND key = $2`, [projectId, u.key]))!;
  }

  /** Newest first, keyset (created_at, id) after `after`. */
  page(projectId: string, limit: number, after: { createdAt: Date; id: string } | null): Promise<UploadRow[]> {
    return after
      ? this.db.rows<UploadRow>(
          `SELECT * FROM ${this.table} WHERE project_id = $1 AND (created_at, id) < ($2, $3) ORDER BY created_at DESC, id DESC LIMIT $4`,
          [projectId, after.createdAt, after.id, limit],
        )
      : this.db.rows<UploadRow>(`SELECT * FROM ${this.table} WHERE project_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, [projectId, limit]);
  }

  async count(projectId: string): Promise<number> {
    const row = await this.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.table} WHERE project_id = $1`, [projectId]);
    return row?.n ?? 0;
  }
}
