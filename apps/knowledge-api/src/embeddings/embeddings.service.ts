import { Injectable } from '@nestjs/common';
import { KnowledgeApiConfig } from '../config';
import { EmbeddingsClient } from './embeddings.client';

/** The configured embeddings server, or none (EMBEDDINGS_URL unset: full-text search only). */
@Injectable()
export class EmbeddingsService {
  readonly client: EmbeddingsClient | null;

  constructor(config: KnowledgeApiConfig) {
    this.client = config.EMBEDDINGS_URL
      ? new EmbeddingsClient({
          baseUrl: config.EMBEDDINGS_URL,
          model: config.EMBEDDINGS_MODEL,
          apiKey: config.EMBEDDINGS_API_KEY,
          timeoutMs: config.EMBEDDINGS_TIMEOUT_MS,
        })
      : null;
  }

  get enabled(): boolean {
    return this.client !== null;
  }

  /** Vectors for `texts`, or null when no server is configured. */
  async embed(texts: string[]): Promise<number[][] | null> {
    if (!this.client || texts.length === 0) return this.client ? [] : null;
    return this.client.embed(texts);
  }
}
