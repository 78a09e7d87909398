import { Injectable, Logger } from '@nestjs/common';
import { EmbeddingsService } from '../embeddings/embeddings.service';
import { SourcesService } from '../sources/sources.service';
import type { ChunkRow } from '../sources/sources.types';
import type { RagQueryDto, RagQueryResultDto, SearchResultDto } from './dto/rag-query.dto';
import { reciprocalRankFusion } from './rank-fusion';

/**
 * `POST /api/rag/query`. Full-text search (PostgreSQL tsvector, GIN index, ts_rank_cd) always;
 * with EMBEDDINGS_URL the query is embedded too and the vector ranking (pgvector HNSW, or the
 * documented fallback of SourcesRepository.nearest, through SourcesService) is fused with the full-text ranking by
 * reciprocal rank fusion, each side asked for 2 × match_count candidates. When the embeddings
 * server fails, the answer is the full-text result (search_mode says which).
 */
@Injectable()
export class SearchService {
  private readonly logger = new Logger(SearchService.name);

  constructor(
    private readonly sources: SourcesService,
    private readonly embeddings: EmbeddingsService,
  ) {}

  async query(dto: RagQueryDto): Promise<RagQueryResultDto> {
    const started = process.hrtime.bigint();
    const limit = dto.match_count ?? 5;
    const source = dto.source ?? null;
    let results: SearchResultDto[];
    let mode: 'full_text' | 'hybrid' = 'full_text';

    let vector: number[] | null = null;
    if (this.embeddings.enabled) {
      try {
        vector = (await this.embeddings.embed([dto.query]))?.[0] ?? null;
      } catch (err) {
        this.logger.warn(`embeddings unavailable, full-text search only: ${(err as Error).message}`);
      }
    }
    if (vector) {
      const [text, nearest] = await Promise.all([
        this.sources.fullText(dto.query, source, limit * 2),
        this.sources.nearest(vector, dto.query, source, limit * 2),
      ]);
      mode = 'hybrid';
      results = reciprocalRankFusion([text, nearest], (r) => r.id)
        .slice(0, limit)
        .map(({ item, score }) => toResult(item, score));
    } else {
      results = (await this.sources.fullText(dto.query, source, limit)).map((r) => toResult(r, r.score ?? 0));
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return {
      success: true,
      query: dto.query,
      results,
      total_results: results.length,
      processing_time: Math.round(seconds * 10000) / 10000,
      search_mode: mode,
    };
  }
}

function toResult(row: ChunkRow, score: number): SearchResultDto {
  return {
    id: row.id,
    title: row.title,
    content: row.content,
    url: row.url,
    similarity_score: Math.round(score * 1e6) / 1e6,
    metadata: { source_id: row.source_id, char_count: row.char_count, word_count: row.word_count, headers: row.headers },
  };
}
