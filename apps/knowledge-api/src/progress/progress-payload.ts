import type { ProgressRow } from './progress.types';

/**
 * The spec's progress payload: `progressId, status, percentage, start_time, currentUrl,
 * totalPages, processedPages, log, logs`; on completion also `chunksStored`, `wordCount`; on an
 * error (or a cancel) `error`. The root namespace adds `message`. `GET /api/progress/{id}` answers
 * the same object.
 */
export interface ProgressPayload {
  progressId: string;
  status: string;
  percentage: number;
  start_time: string;
  currentUrl: string;
  totalPages: number;
  processedPages: number;
  log: string;
  logs: string[];
  sourceId?: string;
  chunksStored?: number;
  wordCount?: number;
  codeExamplesStored?: number;
  error?: string;
  /** the HTTP status of the failure where it has one (an upload job: 422 for an unreadable document) */
  errorStatus?: number;
  message?: string;
  /** a project creation's completion: what it made */
  result?: Record<string, unknown>;
}

export type ProgressEvent = 'progress_update' | 'progress_complete' | 'progress_error';

export function eventFor(status: string): ProgressEvent {
  if (status === 'completed') return 'progress_complete';
  if (status === 'error' || status === 'cancelled') return 'progress_error';
  return 'progress_update';
}

export function toPayload(row: Pick<ProgressRow, 'progress_id' | 'status' | 'percentage' | 'start_time' | 'state' | 'logs'>): ProgressPayload {
  const s = row.state ?? {};
  const payload: ProgressPayload = {
    progressId: row.progress_id,
    status: row.status,
    percentage: row.percentage,
    start_time: new Date(row.start_time).toISOString(),
    currentUrl: s.currentUrl ?? '',
    totalPages: s.totalPages ?? 0,
    processedPages: s.processedPages ?? 0,
    log: s.log ?? row.logs?.[row.logs.length - 1] ?? '',
    logs: row.logs ?? [],
  };
  if (s.sourceId) payload.sourceId = s.sourceId;
  if (row.status === 'completed') {
    payload.chunksStored = s.chunksStored ?? 0;
    payload.wordCount = s.wordCount ?? 0;
    payload.codeExamplesStored = s.codeExamplesStored ?? 0;
    if (s.result) payload.result = s.result;
  }
  if (row.status === 'error' || row.status === 'cancelled') payload.error = s.error ?? (row.status === 'cancelled' ? 'Crawl cancelled' : 'Crawl failed');
  if (row.status === 'error' && s.errorStatus) payload.errorStatus = s.errorStatus;
  return payload;
}

/** The root namespace's copy: the same payload with a human `message`. */
export function withMessage(p: ProgressPayload): ProgressPayload {
  const message =
    p.status === 'completed' && p.result
      ? p.log || 'Completed'
      : p.status === 'completed'
      ? `Crawl completed: ${p.chunksStored ?? 0} chunks stored`
      : p.status === 'error' || p.status === 'cancelled'
        ? (p.error ?? p.status)
        : p.log || `${p.status} ${p.percentage}%`;
  return { ...p, message };
}
