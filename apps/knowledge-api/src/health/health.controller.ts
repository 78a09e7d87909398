import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthRegistry } from '@platform/platform';
import { ContextualEmbeddings } from '../embeddings/contextual-embeddings';
import { EmbeddingsService } from '../embeddings/embeddings.service';
import { RerankService } from '../search/rerank.service';
import { SourcesService } from '../sources/sources.service';
import { ApiKeyDocs } from '../common/api-key';

/**
 * Health detail: the readiness checks (database, broker, redis: what `/readyz` decides on) plus
 * the optional embeddings server and the vector store, which are reported here only and never
 * make the service unready (without them search is full-text only).
 */
@ApiTags('health')
@ApiKeyDocs()
@Controller('api')
export class HealthController {
  constructor(
    private readonly health: HealthRegistry,
    private readonly embeddings: EmbeddingsService,
    private readonly sources: SourcesService,
    private readonly reranker: RerankService,
    private readonly contextual: ContextualEmbeddings,
  ) {}

  @Get('health')
  @ApiOperation({ summary: 'Health detail', description: '`status` follows /readyz; `embeddings` is informational.' })
  async detail(): Promise<Record<string, unknown>> {
    const report = await this.health.check();
    let embeddings: Record<string, unknown> = { configured: false, status: 'not_configured', search: 'full_text' };
    if (this.embeddings.client) {
      try {
        await this.embeddings.client.probe();
        embeddings = { configured: true, status: 'up', model: this.embeddings.client.model, search: 'hybrid' };
      } catch (err) {
        embeddings = { configured: true, status: 'down', error: (err as Error).message, model: this.embeddings.client.model, search: 'full_text until it answers' };
      }
    }
    if (this.embeddings.client) embeddings.query_breaker = this.embeddings.breaker.state;
    let vectorStore: string;
    try {
      vectorStore =
        (await this.sources.vectorMode()) === 'pgvector'
          ? 'pgvector (HNSW)'
          : 'real[] fallback (cosine over full-text candidates; pgvector not installed: install it and run migrate to convert)';
    } catch {
      vectorStore = 'unknown (database down)';
    }
    const reranking = this.reranker.client ? { configured: true, endpoint: this.reranker.client.endpoint } : { configured: false, note: 'no RERANK_URL: results are not reranked' };
    return { status: report.status, service: 'knowledge-api', checks: report.checks, embeddings, vector_store: vectorStore, reranking, contextual_embeddings: this.contextual.state };
  }
}
