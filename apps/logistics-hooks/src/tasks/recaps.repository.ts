import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { RecapItem } from './recap';

export interface Recap {
  id: string;
  briefing: string;
  items: RecapItem[];
  email_count: number;
  generated_by: 'extractive' | 'model';
  created_at: string;
}

interface RecapRow {
  id: string;
  briefing: string;
  items: RecapItem[];
  email_count: number;
  generated_by: 'extractive' | 'model';
  created_at: Date;
}

const toRecap = (r: RecapRow): Recap => ({ ...r, created_at: new Date(r.created_at).toISOString() });

/** Recaps: the latest is what `get_recap` returns; the newest 50 are kept. */
@Injectable()
export class RecapsRepository {
  static readonly KEEP = 50;

  constructor(private readonly db: Database) {}

  async insert(recap: { briefing: string; items: RecapItem[]; generatedBy: 'extractive' | 'model' }): Promise<Recap> {
    const t = this.db.table('recaps');
    const row = await this.db.one<RecapRow>(
      `WITH inserted AS (
         INSERT INTO ${t} (briefing, items, email_count, generated_by) VALUES ($1, $2::jsonb, $3, $4)
         RETURNING id, seq, briefing, items, email_count, generated_by, created_at
       ), trimmed AS (
         DELETE FROM ${t} WHERE seq <= (SELECT seq FROM ${t} ORDER BY seq DESC OFFSET $5 - 1 LIMIT 1)
       )
       SELECT id, briefing, items, email_count, generated_by, created_at FROM inserted`,
      [recap.briefing, JSON.stringify(recap.items), recap.items.length, recap.generatedBy, RecapsRepository.KEEP],
    );
    return toRecap(row!);
  }

  async latest(): Promise<Recap | null> {
    const row = await this.db.one<RecapRow>(
      `SELECT id, briefing, items, email_count, generated_by, created_at FROM ${this.db.table('recaps')} ORDER BY seq DESC LIMIT 1`,
    );
    return row ? toRecap(row) : null;
  }
}
