import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';

/** The file of an upload job, kept until the job (on any replica) has stored it. */
@Injectable()
export class UploadsRepository {
  constructor(private readonly db: Database) {}

  private get table(): string {
    return this.db.table('uploads');
  }

  async insert(progressId: string, content: Buffer): Promise<void> {
    await this.db.affected(`INSERT INTO ${this.table} (progress_id, content) VALUES ($1, $2)`, [progressId, content]);
  }

  async content(progressId: string): Promise<Buffer | null> {
    const row = await this.db.one<{ content: Buffer }>(`SELECT content FROM ${this.table} WHERE progress_id = $1`, [progressId]);
    return row?.content ?? null;
  }

  async delete(progressId: string): Promise<void> {
    await this.db.affected(`DELETE FROM ${this.table} WHERE progress_id = $1`, [progressId]);
  }
}
