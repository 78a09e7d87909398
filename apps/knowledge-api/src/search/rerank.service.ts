import { Injectable } from '@nestjs/common';
import { KnowledgeApiConfig } from '../config';
import { RerankClient } from './rerank.client';

/**
 * Reranking of search results (the MCP setting "reranking"): with RERANK_URL the candidates of a
 * query (2 × match_count from full-text or hybrid search) are scored by the rerank endpoint and
 * answered in its order with its score; without it there is no reranking (`reranked: false`).
 */
@Injectable()
export class RerankService {
  readonly client: RerankClient | null;

  constructor(config: KnowledgeApiConfig) {
    this.client = config.RERANK_URL
      ? new RerankClient({ url: config.RERANK_URL, model: config.RERANK_MODEL, apiKey: config.RERANK_API_KEY, timeoutMs: config.RERANK_TIMEOUT_MS })
      : null;
  }

  get enabled(): boolean {
    return this.client !== null;
  }

  /**
   * `items` in the reranker's order with its scores (clamped to [0, 1]), at most `limit`; null
   * with the reason when the endpoint failed (the caller keeps its order).
   */
  async rerank<T>(query: string, items: T[], text: (item: T) => string, limit: number): Promise<{ ranked: Array<{ item: T; score: number }> } | { ranked: null; note: string }> {
    if (!this.client) return { ranked: null, note: '' };
    try {
      const order = await this.client.rerank(query, items.map(text));
      return { ranked: order.slice(0, limit).map(({ index, score }) => ({ item: items[index], score: Math.min(1, Math.max(0, score)) })) };
    } catch (err) {
      return { ranked: null, note: `reranking skipped: ${(err as Error).message}` };
    }
  }
}
