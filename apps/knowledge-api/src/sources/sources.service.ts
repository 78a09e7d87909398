import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { KnowledgeSourceUpdated, Outbox } from '@platform/messaging';
import { RealtimeEvents } from '../realtime/realtime-events';
import type { ItemsPageDto, ListItemsQueryDto, UpdateItemDto } from './dto/items.dto';
import { SourcesRepository } from './sources.repository';
import type { ChunkRow, CodeExampleRow, EmbeddedKind, PendingEmbedding, SourceRow, VectorMode } from './sources.types';

export class SourceNotFound extends ApiError {
  constructor(sourceId: string) {
    super(404, 'NOT_FOUND', 'Source not found', { suggestion: `no source ${sourceId}; GET /api/rag/sources lists them` });
  }
}

@Injectable()
export class SourcesService {
  constructor(
    private readonly sources: SourcesRepository,
    private readonly realtime: RealtimeEvents,
    private readonly transactions: Transactions,
    private readonly outbox: Outbox,
  ) {}

  async listItems(q: ListItemsQueryDto): Promise<ItemsPageDto> {
    const page = q.page ?? 1;
    const perPage = q.per_page ?? 20;
    const { rows, total } = await this.sources.listItems(
      { knowledge_type: q.knowledge_type, tags: q.tags, status: q.status, source_type: q.source_type },
      page,
      perPage,
    );
    const totalPages = Math.ceil(total / perPage);
    return {
      items: rows.map((r) => ({
        id: r.id,
        url: r.url,
        title: r.title,
        content: r.content,
        knowledge_type: r.knowledge_type,
        tags: r.tags,
        metadata: { source_id: r.source_id, char_count: r.char_count, word_count: r.word_count, headers: r.headers },
        created_at: new Date(r.created_at).toISOString(),
        updated_at: new Date(r.updated_at).toISOString(),
      })),
      pagination: { page, per_page: perPage, total, total_pages: totalPages, has_next: page < totalPages, has_prev: page > 1 },
    };
  }

  async update(sourceId: string, dto: UpdateItemDto): Promise<void> {
    const row = await this.transactions.transaction(async () => {
      if (!(await this.sources.updateSource(sourceId, dto))) throw new SourceNotFound(sourceId);
      const updated = (await this.sources.findSource(sourceId))!;
      await this.outbox.enqueue(KnowledgeSourceUpdated, {
        sourceId,
        title: updated.title,
        sourceType: updated.source_type,
        knowledgeType: updated.knowledge_type,
        url: updated.url,
        chunksStored: 0,
      });
      return updated;
    });
    this.realtime.sourceChanged(false, publicSource(row));
  }

  async delete(sourceId: string): Promise<{ pages: number; codeExamples: number }> {
    const res = await this.sources.deleteSource(sourceId);
    if (!res) throw new SourceNotFound(sourceId);
    return res;
  }

  /** The stored source; 404 `Source not found` otherwise. */
  async get(sourceId: string): Promise<SourceRow> {
    const row = await this.sources.findSource(sourceId);
    if (!row) throw new SourceNotFound(sourceId);
    return row;
  }

  async list(): Promise<Array<Record<string, unknown>>> {
    return (await this.sources.listSources()).map(publicSource);
  }

  /** These chunks with the text of their page (contextual embeddings). */
  chunksWithPages(ids: number[], maxChars: number): Promise<Array<{ id: number; title: string; content: string; document: string }>> {
    return ids.length ? this.sources.chunksWithPages(ids, maxChars) : Promise.resolve([]);
  }

  /** The titles of those of these sources that exist (projects link sources by id). */
  titles(sourceIds: string[]): Promise<Map<string, string>> {
    return sourceIds.length ? this.sources.titles([...new Set(sourceIds)]) : Promise.resolve(new Map());
  }

  /** Those of these code example ids that exist (tasks reference code examples). */
  existingCodeExamples(ids: number[]): Promise<Set<number>> {
    return ids.length ? this.sources.existingCodeExamples([...new Set(ids)]) : Promise.resolve(new Set());
  }

  /** Full-text search of the chunks of active sources (SourcesRepository.fullText). */
  fullText(query: string, source: string | null, limit: number): Promise<ChunkRow[]> {
    return this.sources.fullText(query, source, limit);
  }

  /** The chunks nearest to a unit vector (SourcesRepository.nearest: pgvector, or the full-text-candidates fallback). */
  nearest(embedding: number[], query: string, source: string | null, limit: number): Promise<ChunkRow[]> {
    return this.sources.nearest(embedding, query, source, limit);
  }

  fullTextCodeExamples(query: string, source: string | null, language: string | null, limit: number): Promise<CodeExampleRow[]> {
    return this.sources.fullTextCodeExamples(query, source, language, limit);
  }

  nearestCodeExamples(embedding: number[], query: string, source: string | null, language: string | null, limit: number): Promise<CodeExampleRow[]> {
    return this.sources.nearestCodeExamples(embedding, query, source, language, limit);
  }

  /** Chunks or code examples without a vector of `model`, in id order after `afterId` (the backfill). */
  pendingEmbeddings(kind: EmbeddedKind, model: string, afterId: number, limit: number): Promise<PendingEmbedding[]> {
    return this.sources.pendingEmbeddings(kind, model, afterId, limit);
  }

  countPendingEmbeddings(kind: EmbeddedKind, model: string): Promise<number> {
    return this.sources.countPendingEmbeddings(kind, model);
  }

  setEmbeddings(kind: EmbeddedKind, ids: number[], vectors: number[][], model: string): Promise<number> {
    return this.sources.setEmbeddings(kind, ids, vectors, model);
  }

  /** How embeddings are stored: pgvector, or `real[]` where the extension is missing. */
  vectorMode(): Promise<VectorMode> {
    return this.sources.vectorMode();
  }

  /** Crawled sources whose recrawl came due, claimed for this replica (their next date moves on at once). */
  claimDueRecrawls(limit: number): Promise<SourceRow[]> {
    return this.sources.claimDueRecrawls(limit);
  }
}

export function publicSource(r: SourceRow): { source_id: string; title: string; [k: string]: unknown } {
  return {
    source_id: r.source_id,
    title: r.title,
    description: r.description,
    created_at: new Date(r.created_at).toISOString(),
    last_updated: new Date(r.last_updated).toISOString(),
    source_type: r.source_type,
    url: r.url,
    knowledge_type: r.knowledge_type,
    tags: r.tags,
    status: r.status,
    update_frequency: r.update_frequency,
    next_crawl_at: r.next_crawl_at ? new Date(r.next_crawl_at).toISOString() : null,
    total_word_count: r.total_word_count,
    ...(r.chunks_count !== undefined ? { chunks_count: r.chunks_count, code_examples_count: r.code_examples_count } : {}),
  };
}
