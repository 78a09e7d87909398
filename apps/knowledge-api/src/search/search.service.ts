import { Injectable } from '@nestjs/common';
import { EmbeddingsService } from '../embeddings/embeddings.service';
import { SourcesService } from '../sources/sources.service';
import type { ChunkRow, CodeExampleRow } from '../sources/sources.types';
import type { CodeExampleResultDto, CodeExamplesQueryDto, CodeExamplesResultDto, RagQueryDto, RagQueryResultDto, SearchResultDto } from './dto/rag-query.dto';
import { reciprocalRankFusion } from './rank-fusion';
import { RerankService } from './rerank.service';

/**
 * `POST /api/rag/query` and `/api/rag/code-examples`. Full-text search (PostgreSQL tsvector, GIN
 * index, ts_rank_cd) always; with EMBEDDINGS_URL the query is embedded too (EmbeddingsService.embedQuery:
 * a short timeout behind a circuit breaker) and the vector ranking (pgvector, or the documented
 * fallback of SourcesRepository.nearest, through SourcesService) is fused with the full-text
 * ranking by reciprocal rank fusion, each side asked for 2 × match_count candidates. When the
 * query cannot be embedded the answer is the full-text result with a `note` saying why.
 */
@Injectable()
export class SearchService {
  constructor(
    private readonly sources: SourcesService,
    private readonly embeddings: EmbeddingsService,
    private readonly reranker: RerankService,
  ) {}

  async query(dto: RagQueryDto): Promise<RagQueryResultDto> {
    const started = process.hrtime.bigint();
    const limit = dto.match_count ?? 5;
    const source = dto.source ?? null;
    const found = await this.search(
      dto.query,
      limit,
      (n) => this.sources.fullText(dto.query, source, n),
      (v, n) => this.sources.nearest(v, dto.query, source, n),
      (r) => (r.title ? `${r.title}\n\n${r.content}` : r.content),
    );
    const results = found.results.map(({ item, score }) => toResult(item, score));
    return { success: true, query: dto.query, results, total_results: results.length, processing_time: secondsSince(started), search_mode: found.mode, reranked: found.reranked, ...note(found.note) };
  }

  async codeExamples(dto: CodeExamplesQueryDto): Promise<CodeExamplesResultDto> {
    const started = process.hrtime.bigint();
    const limit = dto.match_count ?? 5;
    const source = dto.source ?? null;
    const language = dto.language ?? null;
    const found = await this.search(
      dto.query,
      limit,
      (n) => this.sources.fullTextCodeExamples(dto.query, source, language, n),
      (v, n) => this.sources.nearestCodeExamples(v, dto.query, source, language, n),
      (e) => (e.summary ? `${e.summary}\n\n${e.content}` : e.content),
    );
    const results = found.results.map(({ item, score }) => toCodeResult(item, score));
    return { success: true, query: dto.query, results, total_results: results.length, processing_time: secondsSince(started), search_mode: found.mode, reranked: found.reranked, ...note(found.note) };
  }

  private async search<T extends { id: number; score?: number }>(
    query: string,
    limit: number,
    fullText: (n: number) => Promise<T[]>,
    nearest: (vector: number[], n: number) => Promise<T[]>,
    text: (item: T) => string,
  ): Promise<{ results: Array<{ item: T; score: number }>; mode: 'full_text' | 'hybrid'; reranked: boolean; note: string | null }> {
    // with a reranker, 2 × limit candidates go to it and the best `limit` of its order are answered
    const candidates = this.reranker.enabled ? limit * 2 : limit;
    // The full-text side needs no vector: with an embeddings server it runs while the query is
    // embedded. Its 2 × limit rows (ordered by score, then id) start with the `candidates` a
    // full-text-only answer takes (the server failing or slow).
    const lexicalRows = fullText(this.embeddings.enabled ? limit * 2 : candidates);
    lexicalRows.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
    const embedded = await this.embeddings.embedQuery(query);
    let results: Array<{ item: T; score: number }>;
    let mode: 'full_text' | 'hybrid' = 'full_text';
    if (embedded.vector) {
      const [lexical, near] = await Promise.all([lexicalRows, nearest(embedded.vector, limit * 2)]);
      results = reciprocalRankFusion([lexical, near], (r) => r.id).slice(0, candidates);
      mode = 'hybrid';
    } else {
      results = (await lexicalRows).slice(0, candidates).map((item) => ({ item, score: item.score ?? 0 }));
    }
    const notes = embedded.vector ? [] : [embedded.note].filter((n): n is string => !!n);
    let reranked = false;
    if (this.reranker.enabled && results.length > 0) {
      const r = await this.reranker.rerank(query, results.map((x) => x.item), text, limit);
      if (r.ranked) {
        results = r.ranked;
        reranked = true;
      } else notes.push(r.note);
    }
    return { results: results.slice(0, limit), mode, reranked, note: notes.length ? notes.join('; ') : null };
  }
}

function secondsSince(started: bigint): number {
  return Math.round((Number(process.hrtime.bigint() - started) / 1e9) * 10000) / 10000;
}

function note(text: string | null): { note?: string } {
  return text ? { note: text } : {};
}

function round(score: number): number {
  return Math.round(score * 1e6) / 1e6;
}

function toResult(row: ChunkRow, score: number): SearchResultDto {
  return {
    id: row.id,
    title: row.title,
    content: row.content,
    url: row.url,
    similarity_score: round(score),
    metadata: { source_id: row.source_id, char_count: row.char_count, word_count: row.word_count, headers: row.headers },
  };
}

function toCodeResult(row: CodeExampleRow, score: number): CodeExampleResultDto {
  return { id: row.id, source_id: row.source_id, url: row.url, language: row.language, content: row.content, summary: row.summary, similarity_score: round(score) };
}
