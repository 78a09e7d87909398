export type JobType = 'IMPORT' | 'BULK_SUBSCRIBE' | 'BULK_UNSUBSCRIBE' | 'BULK_DELETE' | 'SEGMENT_COMPUTE';
export type JobState = 'waiting' | 'active' | 'completed' | 'failed';

export interface RowError {
  /** Line of the CSV (the header is row 1), or the position in the id list (from 1). */
  row: number;
  email?: string;
  id?: string;
  message: string;
}

export interface JobRow {
  id: string;
  project_id: string;
  type: JobType;
  state: JobState;
  payload: Record<string, unknown>;
  input: string | null;
  total: number;
  processed: number;
  result: Record<string, unknown> | null;
  errors: RowError[];
  failed_reason: string | null;
  attempts: number;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

/** What GET /contacts/import/:jobId and GET /contacts/bulk/:jobId return. */
export interface JobView {
  id: string;
  type: JobType;
  state: JobState;
  /** Percent of rows processed, 0–100. */
  progress: number;
  total: number;
  processed: number;
  result: Record<string, unknown> | null;
  errors: RowError[];
  failedReason: string | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

export function toJobView(r: JobRow): JobView {
  return {
    id: r.id,
    type: r.type,
    state: r.state,
    progress: r.state === 'completed' ? 100 : r.total ? Math.floor((r.processed * 100) / r.total) : 0,
    total: r.total,
    processed: r.processed,
    result: r.result,
    errors: r.errors ?? [],
    failedReason: r.failed_reason,
    createdAt: r.created_at,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
  };
}
