import { Injectable } from '@nestjs/common';
import { KnowledgeApiConfig } from '../config';
import { CircuitBreaker } from './circuit-breaker';
import { EmbeddingsClient } from './embeddings.client';

/** Why a query was answered without its vector (search adds it as `note`). */
export type QueryEmbedding = { vector: number[] } | { vector: null; note: string | null };

/**
 * The configured embeddings server, or none (EMBEDDINGS_URL unset: full-text search only).
 * Storage (crawls, uploads, the backfill) uses the patient client (EMBEDDINGS_TIMEOUT_MS, three
 * attempts); a query uses `embedQuery`: one attempt within EMBEDDINGS_QUERY_TIMEOUT_MS behind a
 * circuit breaker (EMBEDDINGS_BREAKER_FAILURES failures in a row open it for
 * EMBEDDINGS_BREAKER_COOLDOWN_MS), so a hung server costs a query at most that timeout, and
 * nothing while the breaker is open.
 */
@Injectable()
export class EmbeddingsService {
  readonly client: EmbeddingsClient | null;
  private readonly queryClient: EmbeddingsClient | null;
  readonly breaker: CircuitBreaker;

  constructor(config: KnowledgeApiConfig) {
    const base = config.EMBEDDINGS_URL
      ? { baseUrl: config.EMBEDDINGS_URL, model: config.EMBEDDINGS_MODEL, apiKey: config.EMBEDDINGS_API_KEY }
      : null;
    this.client = base ? new EmbeddingsClient({ ...base, timeoutMs: config.EMBEDDINGS_TIMEOUT_MS }) : null;
    this.queryClient = base ? new EmbeddingsClient({ ...base, timeoutMs: config.EMBEDDINGS_QUERY_TIMEOUT_MS, attempts: 1 }) : null;
    this.breaker = new CircuitBreaker({ failures: config.EMBEDDINGS_BREAKER_FAILURES, cooldownMs: config.EMBEDDINGS_BREAKER_COOLDOWN_MS });
    this.model = config.EMBEDDINGS_MODEL;
  }

  /** The model whose vectors are stored (`embedding_model` of each chunk). */
  readonly model: string;

  get enabled(): boolean {
    return this.client !== null;
  }

  /** Vectors for `texts`, or null when no server is configured. */
  async embed(texts: string[]): Promise<number[][] | null> {
    if (!this.client || texts.length === 0) return this.client ? [] : null;
    return this.client.embed(texts);
  }

  /** The query's vector, or null with the reason (no server, breaker open, failure or timeout). */
  async embedQuery(text: string): Promise<QueryEmbedding> {
    if (!this.queryClient) return { vector: null, note: null };
    if (!this.breaker.allow()) {
      return { vector: null, note: `embeddings server failing: full-text results only until ${this.breaker.retryAt()}` };
    }
    try {
      const [vector] = await this.queryClient.embed([text]);
      this.breaker.success();
      return { vector };
    } catch (err) {
      this.breaker.failure();
      return { vector: null, note: `embeddings server did not answer in time (${(err as Error).message}): full-text results only` };
    }
  }
}
