// What the mixed load (tools/bench/mixed-load.ts) and its generator process (mixed-load-process.ts) exchange.

/** One hot path of a service, through the gateway. */
export interface LoadPath {
  /** `<METHOD> <gateway path>` as shown in the table */
  name: string;
  service: string;
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  /** `[<id>]` in it is replaced with a new id per request (unique emails, keys) */
  body?: string;
  /** a binary body (multipart), base64 over IPC */
  bodyBase64?: string;
  /** the statuses that count as answered */
  expect: number[];
}

export interface LoadWindow {
  paths: LoadPath[];
  /** connections per path */
  connections: number;
  seconds: number;
}

export interface LoadResult {
  name: string;
  service: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** socket errors, timeouts and answers outside `expect` */
  failed: number;
  statuses: Record<string, number>;
}

export type LoadMessage = { results: LoadResult[] } | { error: string };

export type AutocannonLike = (opts: Record<string, unknown>) => Promise<{
  requests: { total: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  statusCodeStats?: Record<string, { count: number }>;
}>;
