import { Injectable } from '@nestjs/common';
import { KnowledgeApiConfig } from '../config';
import { ContextualEmbeddings } from '../embeddings/contextual-embeddings';
import { EmbeddingsService } from '../embeddings/embeddings.service';
import { SourcesService } from '../sources/sources.service';
import { RerankService } from './rerank.service';

export interface RetrievalFlags {
  /** the chat model (LLM_MODEL) used for contextual embeddings and project drafts */
  model_choice: string;
  use_contextual_embeddings: boolean;
  use_hybrid_search: boolean;
  use_agentic_rag: boolean;
  use_reranking: boolean;
  /** why each flag has its value (what configures it) */
  notes: Record<'contextual_embeddings' | 'hybrid_search' | 'agentic_rag' | 'reranking', string>;
}

/**
 * The four retrieval settings of the MCP config as they act, read from the configuration (never
 * stored flags): hybrid search = an embeddings server and a vector store; reranking = a rerank
 * endpoint; contextual embeddings = the flag with a chat and an embeddings server; agentic RAG =
 * the code example search (`POST /api/rag/code-examples`), always served.
 */
@Injectable()
export class RetrievalSettings {
  constructor(
    private readonly config: KnowledgeApiConfig,
    private readonly embeddings: EmbeddingsService,
    private readonly contextual: ContextualEmbeddings,
    private readonly reranker: RerankService,
    private readonly sources: SourcesService,
  ) {}

  async flags(): Promise<RetrievalFlags> {
    let store = 'unknown (database down)';
    try {
      store = (await this.sources.vectorMode()) === 'pgvector' ? 'pgvector' : 'the real[] fallback (cosine over full-text candidates)';
    } catch {
      // reported as unknown
    }
    const ctx = this.contextual.state;
    return {
      model_choice: this.config.LLM_MODEL,
      use_contextual_embeddings: ctx.active,
      use_hybrid_search: this.embeddings.enabled,
      use_agentic_rag: true,
      use_reranking: this.reranker.enabled,
      notes: {
        contextual_embeddings: ctx.active ? `chunks get context from ${ctx.model} before embedding (CONTEXTUAL_EMBEDDINGS, LLM_URL)` : (ctx.note ?? 'off'),
        hybrid_search: this.embeddings.enabled
          ? `full-text and vector rankings fused; vectors of ${this.embeddings.model} in ${store} (EMBEDDINGS_URL)`
          : 'no EMBEDDINGS_URL: full-text search only',
        agentic_rag: 'code examples are indexed and searched (POST /api/rag/code-examples)',
        reranking: this.reranker.enabled ? 'results reranked by the RERANK_URL endpoint' : 'no RERANK_URL: results are not reranked',
      },
    };
  }
}
