/**
 * A crawl's progress as the `progress` table holds it (ProgressRepository reads and writes it):
 * the state every replica reads and the crawl queue's row. Other features use these types; only
 * the progress feature reaches the repository.
 */
export interface ProgressState {
  currentUrl?: string;
  totalPages?: number;
  processedPages?: number;
  log?: string;
  chunksStored?: number;
  wordCount?: number;
  codeExamplesStored?: number;
  sourceId?: string;
  error?: string;
  /** the HTTP status of the failure where it has one (an upload's unreadable document: 422) */
  errorStatus?: number;
  message?: string;
  /** what a project creation made (`progress_complete`'s `result`) */
  result?: Record<string, unknown>;
}

export interface CrawlRequest {
  url: string;
  knowledge_type: 'technical' | 'business' | 'general';
  tags: string[];
  update_frequency: number;
  max_depth: number;
  /** set for a scheduled recrawl */
  recrawl?: boolean;
}

export interface ProgressRow {
  progress_id: string;
  /** `crawl`, `backfill` (the embeddings backfill; its `request` is `{model}`), `upload`, `project` (a project's creation) */
  kind: string;
  status: string;
  percentage: number;
  state: ProgressState;
  logs: string[];
  request: CrawlRequest;
  source_id: string | null;
  run_state: 'queued' | 'running' | 'finished';
  attempts: number;
  cancel_requested: boolean;
  start_time: Date;
  updated_at: Date;
}
