import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { Severity } from './dto/error-requests.dto';
import type { ErrorState } from './error-status';

export interface ErrorRecord {
  id: string;
  fingerprint: string;
  message: string;
  source: string;
  severity: Severity;
  stack: string | null;
  context: Record<string, unknown> | null;
  status: ErrorState;
  proposed_fix: string | null;
  notes: string | null;
  occurrences: number;
  first_seen: string;
  last_seen: string;
  updated_at: string;
}

interface ErrorRow extends Omit<ErrorRecord, 'first_seen' | 'last_seen' | 'updated_at'> {
  first_seen: Date;
  last_seen: Date;
  updated_at: Date;
}

export interface NewErrorReport {
  fingerprint: string;
  message: string;
  source: string;
  severity: Severity;
  stack: string | null;
  context: Record<string, unknown> | null;
}

export interface ErrorFilter {
  status?: ErrorState;
  severity?: Severity;
  source?: string;
  limit: number;
  offset: number;
}

export interface ErrorChanges {
  status?: ErrorState;
  proposedFix?: string | null;
  notes?: string | null;
}

const COLUMNS = 'id, fingerprint, message, source, severity, stack, context, status, proposed_fix, notes, occurrences, first_seen, last_seen, updated_at';

const toRecord = (r: ErrorRow): ErrorRecord => ({
  ...r,
  first_seen: new Date(r.first_seen).toISOString(),
  last_seen: new Date(r.last_seen).toISOString(),
  updated_at: new Date(r.updated_at).toISOString(),
});

@Injectable()
export class ErrorRecordsRepository {
  constructor(private readonly db: Database) {}

  /**
   * One statement: a new fingerprint inserts the record; a known one counts one more occurrence
   * (row-locked by ON CONFLICT, so concurrent repeats never lose a count), keeps the latest stack and
   * context, and reopens a resolved record (a regression).
   */
  async upsert(report: NewErrorReport): Promise<{ record: ErrorRecord; isNew: boolean }> {
    const t = this.db.table('error_records');
    const row = await this.db.one<ErrorRow & { is_new: boolean }>(
      `INSERT INTO ${t} AS e (fingerprint, message, source, severity, stack, context)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb)
       ON CONFLICT (fingerprint) DO UPDATE SET
         occurrences = e.occurrences + 1,
         last_seen = now(),
         updated_at = now(),
         stack = coalesce(EXCLUDED.stack, e.stack),
         context = coalesce(EXCLUDED.context, e.context),
         status = CASE WHEN e.status = 'resolved' THEN 'open' ELSE e.status END
       RETURNING ${COLUMNS}, (xmax = 0) AS is_new`,
      [report.fingerprint, report.message, report.source, report.severity, report.stack, report.context === null ? null : JSON.stringify(report.context)],
    );
    const { is_new, ...record } = row!;
    return { record: toRecord(record), isNew: is_new };
  }

  async findById(id: string): Promise<ErrorRecord | null> {
    const row = await this.db.one<ErrorRow>(`SELECT ${COLUMNS} FROM ${this.db.table('error_records')} WHERE id = $1`, [id]);
    return row ? toRecord(row) : null;
  }

  async lockById(id: string): Promise<ErrorRecord | null> {
    const row = await this.db.one<ErrorRow>(`SELECT ${COLUMNS} FROM ${this.db.table('error_records')} WHERE id = $1 FOR UPDATE`, [id]);
    return row ? toRecord(row) : null;
  }

  async list(filter: ErrorFilter): Promise<{ errors: ErrorRecord[]; total: number }> {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (column: string, value: unknown) => {
      params.push(value);
      where.push(`${column} = $${params.length}`);
    };
    if (filter.status) add('status', filter.status);
    if (filter.severity) add('severity', filter.severity);
    if (filter.source) add('source', filter.source);
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const t = this.db.table('error_records');
    const rows = await this.db.rows<ErrorRow>(
      `SELECT ${COLUMNS} FROM ${t} ${clause} ORDER BY last_seen DESC, id LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, filter.limit, filter.offset],
    );
    const count = await this.db.one<{ n: string }>(`SELECT count(*) AS n FROM ${t} ${clause}`, params);
    return { errors: rows.map(toRecord), total: Number(count?.n ?? 0) };
  }

  async update(id: string, changes: ErrorChanges): Promise<ErrorRecord | null> {
    const sets: string[] = ['updated_at = now()'];
    const params: unknown[] = [id];
    const set = (column: string, value: unknown) => {
      params.push(value);
      sets.push(`${column} = $${params.length}`);
    };
    if (changes.status !== undefined) set('status', changes.status);
    if (changes.proposedFix !== undefined) set('proposed_fix', changes.proposedFix);
    if (changes.notes !== undefined) set('notes', changes.notes);
    const row = await this.db.one<ErrorRow>(`UPDATE ${this.db.table('error_records')} SET ${sets.join(', ')} WHERE id = $1 RETURNING ${COLUMNS}`, params);
    return row ? toRecord(row) : null;
  }

  async delete(id: string): Promise<boolean> {
    return (await this.db.affected(`DELETE FROM ${this.db.table('error_records')} WHERE id = $1`, [id])) > 0;
  }

  async stats(): Promise<{
    total: number;
    occurrences: number;
    last_24h: number;
    by_status: Record<string, number>;
    by_severity: Record<string, number>;
  }> {
    const t = this.db.table('error_records');
    const rows = await this.db.rows<{ dimension: string; value: string; n: string }>(
      `SELECT 'status' AS dimension, status AS value, count(*) AS n FROM ${t} GROUP BY status
       UNION ALL SELECT 'severity', severity, count(*) FROM ${t} GROUP BY severity
       UNION ALL SELECT 'occurrences', '', coalesce(sum(occurrences), 0) FROM ${t}
       UNION ALL SELECT 'last_24h', '', count(*) FROM ${t} WHERE last_seen > now() - interval '24 hours'`,
    );
    const out = { total: 0, occurrences: 0, last_24h: 0, by_status: {} as Record<string, number>, by_severity: {} as Record<string, number> };
    for (const r of rows) {
      const n = Number(r.n);
      if (r.dimension === 'status') {
        out.by_status[r.value] = n;
        out.total += n;
      } else if (r.dimension === 'severity') out.by_severity[r.value] = n;
      else if (r.dimension === 'occurrences') out.occurrences = n;
      else out.last_24h = n;
    }
    return out;
  }

  /** The most frequent records. */
  async top(limit: number): Promise<ErrorRecord[]> {
    const rows = await this.db.rows<ErrorRow>(`SELECT ${COLUMNS} FROM ${this.db.table('error_records')} ORDER BY occurrences DESC, last_seen DESC LIMIT $1`, [limit]);
    return rows.map(toRecord);
  }
}
