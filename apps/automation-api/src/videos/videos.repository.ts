import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';

export type FileStatus = 'stored' | 'uploaded' | 'deleted';

export interface VideoRow {
  id: string;
  account_id: number;
  content_type: string;
  size_bytes: number;
  file_status: FileStatus;
  path: string;
  created_at: Date;
}

/** Uploaded videos: the row (size, status, where the file lies); the bytes live under DATA_DIR. */
@Injectable()
export class VideosRepository {
  constructor(private readonly db: Database) {}

  private get table(): string {
    return this.db.table('videos');
  }

  async insert(v: Omit<VideoRow, 'created_at'>): Promise<VideoRow> {
    const row = await this.db.one<VideoRow>(
      `INSERT INTO ${this.table} (id, account_id, content_type, size_bytes, file_status, path) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
      [v.id, v.account_id, v.content_type, v.size_bytes, v.file_status, v.path],
    );
    return normalize(row!);
  }

  async find(accountId: number, id: string): Promise<VideoRow | null> {
    const row = await this.db.one<VideoRow>(`SELECT * FROM ${this.table} WHERE account_id = $1 AND id = $2`, [accountId, id]);
    return row ? normalize(row) : null;
  }

  async findMany(accountId: number, ids: string[]): Promise<Map<string, VideoRow>> {
    if (!ids.length) return new Map();
    const rows = await this.db.rows<VideoRow>(`SELECT * FROM ${this.table} WHERE account_id = $1 AND id = ANY($2::uuid[])`, [accountId, ids]);
    return new Map(rows.map((r) => [r.id, normalize(r)]));
  }

  async markUploaded(id: string): Promise<void> {
    await this.db.affected(`UPDATE ${this.table} SET file_status = 'uploaded' WHERE id = $1 AND file_status = 'stored'`, [id]);
  }
}

function normalize(row: VideoRow): VideoRow {
  return { ...row, size_bytes: Number(row.size_bytes) };
}
