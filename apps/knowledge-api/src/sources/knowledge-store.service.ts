import { createHash } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { KnowledgeSourceAdded, KnowledgeSourceUpdated, Outbox } from '@platform/messaging';
import { chunkMarkdown, extractCodeExamples, type Chunk } from '../chunking/chunk-markdown';
import { ContextualEmbeddings, embeddingText } from '../embeddings/contextual-embeddings';
import { EmbeddingsService } from '../embeddings/embeddings.service';
import { batchLine, type PhaseStatus } from '../progress/progress-phases';
import type { ProgressState } from '../progress/progress.types';
import { RealtimeEvents } from '../realtime/realtime-events';
import { SourcesRepository } from './sources.repository';
import type { NewChunk, NewCodeExample, SourceInput } from './sources.types';

export interface PageInput {
  url: string;
  title: string;
  markdown: string;
}

/** Progress callback of the storage phases (a crawl reports them; an upload does not). */
export type PhaseHook = (phase: PhaseStatus, fraction: number, patch?: ProgressState, log?: string) => Promise<void>;

export interface StoreResult {
  created: boolean;
  /** batches stored without embeddings because the embeddings server failed */
  embeddingFailures: number;
  pagesChanged: number;
  pagesUnchanged: number;
  /** pages stored before that a recrawl no longer found (removed) */
  pagesRemoved: number;
  chunksStored: number;
  codeExamplesStored: number;
  wordCount: number;
}

const BATCH_CHUNKS = 50;
/** Batches stored at once (see `store`). */
export const STORE_CONCURRENCY = 2;
/** pgvector's HNSW indexes `vector`s of at most this many dimensions. */
const MAX_HNSW_DIMENSIONS = 2000;

export function pageHash(markdown: string): string {
  return createHash('sha256').update(markdown).digest('hex');
}

/**
 * Turns pages into stored knowledge: chunks (≤ 5000 characters, with headers and counts), their
 * embeddings when a server is configured, and code examples. Shared by crawls and uploads.
 * With `onlyChanged`, pages whose content hash is already stored are left as they are (recrawls);
 * with `removeMissing`, stored pages not among `pages` are removed (a recrawl's vanished pages).
 * A changed page's old chunks and code examples are replaced in the transaction that stores its
 * new ones (a failed recrawl leaves them searchable).
 * Phases, as the crawl progress reports them: processing (chunking) → source_creation →
 * document_storage (page-aligned batches of about 50 chunks, one transaction each, so a page is
 * always stored whole; two batches at once) → code_storage.
 */
@Injectable()
export class KnowledgeStore {
  private readonly logger = new Logger(KnowledgeStore.name);
  /** Embedding dimensions whose index was looked for (once per process). */
  private readonly dimensionsChecked = new Set<number>();

  constructor(
    private readonly transactions: Transactions,
    private readonly sources: SourcesRepository,
    private readonly embeddings: EmbeddingsService,
    private readonly contextual: ContextualEmbeddings,
    private readonly realtime: RealtimeEvents,
    private readonly outbox: Outbox,
  ) {}

  async store(source: SourceInput, pages: PageInput[], opts: { onlyChanged: boolean; removeMissing?: boolean; phase?: PhaseHook }): Promise<StoreResult> {
    const phase: PhaseHook = opts.phase ?? (async () => undefined);

    // processing: chunk every (changed) page
    const known = opts.onlyChanged ? await this.sources.pageHashes(source.source_id) : new Map<string, string>();
    const changed: Array<{ page: PageInput; hash: string; chunks: Chunk[] }> = [];
    let unchanged = 0;
    for (let i = 0; i < pages.length; i++) {
      const page = pages[i];
      const hash = pageHash(page.markdown);
      if (known.get(page.url) === hash) unchanged++;
      else changed.push({ page, hash, chunks: chunkMarkdown(page.markdown) });
      if (i % 10 === 9 || i === pages.length - 1) await phase('processing', (i + 1) / pages.length, { processedPages: i + 1, totalPages: pages.length });
    }
    const totalChunks = changed.reduce((n, c) => n + c.chunks.length, 0);
    await phase(
      'processing',
      1,
      {},
      `Processed ${pages.length} pages into ${totalChunks} chunks${unchanged ? ` (${unchanged} unchanged pages kept)` : ''}`,
    );

    // source_creation: the source row (old chunks stay searchable until their page's new ones replace them)
    await phase('source_creation', 0, {}, `Creating source ${source.source_id}`);
    const { created } = await this.transactions.transaction(() => this.sources.upsertSource(source));
    await phase('source_creation', 1, { sourceId: source.source_id }, `Source ${source.source_id} ${created ? 'created' : 'updated'}`);

    // document_storage: page-aligned batches; each replaces its pages' chunks and code examples in
    // one transaction, so a recrawl that fails midway leaves every page either old or new, never gone
    const batches: Array<typeof changed> = [];
    let current: typeof changed = [];
    let size = 0;
    for (const c of changed) {
      if (size > 0 && size + c.chunks.length > BATCH_CHUNKS) {
        batches.push(current);
        current = [];
        size = 0;
      }
      current.push(c);
      size += c.chunks.length;
    }
    if (current.length) batches.push(current);

    const model = this.embeddings.model;
    // where each batch's chunks start in the crawl's numbering (its log line), whatever order batches end in
    const offsets: number[] = [];
    batches.reduce((n, batch, b) => ((offsets[b] = n), n + batch.reduce((m, c) => m + c.chunks.length, 0)), 0);
    let stored = 0;
    let words = 0;
    let codeStored = 0;
    let embeddingFailures = 0;
    const storeBatch = async (b: number): Promise<void> => {
      const batch = batches[b];
      const rows: NewChunk[] = batch.flatMap(({ page, hash, chunks }) =>
        chunks.map((chunk, n) => ({
          url: page.url,
          title: page.title,
          chunk_number: n,
          content: chunk.content,
          headers: chunk.headers,
          char_count: chunk.char_count,
          word_count: chunk.word_count,
          page_hash: hash,
          embedding: null as number[] | null,
          embedding_model: null as string | null,
        })),
      );
      const examples: NewCodeExample[] = batch.flatMap(({ page }) =>
        extractCodeExamples(page.markdown).map((e, n) => ({
          url: page.url,
          example_number: n,
          language: e.language,
          content: e.code,
          summary: e.context.split('\n\n').pop()?.slice(-300) ?? '',
          embedding: null as number[] | null,
          embedding_model: null as string | null,
        })),
      );
      await phase(
        'document_storage',
        b / batches.length,
        {},
        batchLine(b + 1, batches.length, offsets[b] + 1, offsets[b] + rows.length, totalChunks),
      );
      let vectors: number[][] | null = null;
      // contextual embeddings: each chunk's context, written from its page by the chat model
      let contexts: Array<string | null> = rows.map(() => null);
      if (this.contextual.active) {
        contexts = await this.contextual.contexts(batch.flatMap(({ page, chunks }) => chunks.map((chunk) => ({ document: page.markdown, chunk: chunk.content }))));
        await phase(
          'document_storage',
          b / batches.length,
          {},
          `Contextual embeddings: ${contexts.filter(Boolean).length} of ${rows.length} chunks given context`,
        );
      }
      const texts = [
        ...rows.map((r, i) => embeddingText(r.title, r.content, contexts[i])),
        ...examples.map((e) => (e.summary ? `${e.summary}\n\n${e.content}` : e.content)),
      ];
      try {
        vectors = await this.embeddings.embed(texts);
      } catch (err) {
        // stored without vectors: full-text search finds them; the backfill job embeds them later
        embeddingFailures++;
        await phase('document_storage', b / batches.length, {}, `Embeddings unavailable, batch ${b + 1} stored for full-text search only: ${(err as Error).message}`);
      }
      if (vectors) {
        const contextModel = this.contextual.chunkModel;
        rows.forEach((r, i) => Object.assign(r, { embedding: vectors[i], embedding_model: contexts[i] ? contextModel : model }));
        examples.forEach((e, i) => Object.assign(e, { embedding: vectors[rows.length + i], embedding_model: model }));
        await this.checkVectorIndex(vectors);
      }
      codeStored += await this.transactions.transaction(async () => {
        await this.sources.deletePages(
          source.source_id,
          batch.map((c) => c.page.url),
        );
        await this.sources.insertChunks(source.source_id, rows);
        return this.sources.insertCodeExamples(source.source_id, examples);
      });
      stored += rows.length;
      words += rows.reduce((n, r) => n + r.word_count, 0);
    };
    // STORE_CONCURRENCY batches at once, each in its own transaction on its own connection: the
    // database's work on a batch (its full-text vectors, the GIN index) is most of a batch's time, and
    // this way it runs on more than one of the database's cores. The first failure stops new batches
    // from starting; the ones already running end (each whole or not at all), then it is thrown.
    let next = 0;
    const failures: unknown[] = [];
    const runner = async () => {
      while (!failures.length && next < batches.length) {
        const b = next++;
        try {
          await storeBatch(b);
        } catch (error) {
          failures.push(error);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(STORE_CONCURRENCY, batches.length) }, runner));
    if (failures.length) throw failures[0];
    await phase('document_storage', 1, { chunksStored: stored }, `Stored ${stored} chunks`);

    // code_storage: stored with their pages above; pages the recrawl no longer found are removed
    await phase('code_storage', 0, {}, `Stored ${codeStored} code examples with their pages`);
    let pagesRemoved = 0;
    if (opts.removeMissing) {
      const found = new Set(pages.map((p) => p.url));
      const vanished = (await this.sources.pageUrls(source.source_id)).filter((u) => !found.has(u));
      if (vanished.length) {
        await this.transactions.transaction(() => this.sources.deletePages(source.source_id, vanished));
        pagesRemoved = vanished.length;
        await phase('code_storage', 0.5, {}, `Removed ${vanished.length} pages no longer found: ${vanished.slice(0, 5).join(', ')}${vanished.length > 5 ? ', …' : ''}`);
      }
    }
    await phase('code_storage', 1, { codeExamplesStored: codeStored }, `Stored ${codeStored} code examples`);

    // the totals and the event in one transaction (outbox): `knowledge.source_added` / `source_updated`
    await this.transactions.transaction(async () => {
      await this.sources.refreshTotals(source.source_id);
      await this.outbox.enqueue(created ? KnowledgeSourceAdded : KnowledgeSourceUpdated, {
        sourceId: source.source_id,
        title: source.title,
        sourceType: source.source_type,
        knowledgeType: source.knowledge_type,
        url: source.url,
        chunksStored: stored,
      });
    });
    this.realtime.sourceChanged(created, {
      source_id: source.source_id,
      title: source.title,
      source_type: source.source_type,
      knowledge_type: source.knowledge_type,
      chunks_stored: stored,
    });
    return {
      created,
      embeddingFailures,
      pagesChanged: changed.length,
      pagesUnchanged: unchanged,
      pagesRemoved,
      chunksStored: stored,
      codeExamplesStored: codeStored,
      wordCount: words,
    };
  }

  /**
   * Says once per dimension when embeddings are stored in pgvector without their HNSW index (the
   * migration makes it for EMBEDDINGS_DIMENSIONS): search still works, by scanning.
   */
  private async checkVectorIndex(vectors: number[][]): Promise<void> {
    for (const dim of new Set(vectors.map((v) => v.length))) {
      if (this.dimensionsChecked.has(dim)) continue;
      this.dimensionsChecked.add(dim);
      if (!(await this.sources.lacksVectorIndex(dim))) continue;
      this.logger.warn(
        dim > MAX_HNSW_DIMENSIONS
          ? `embeddings have ${dim} dimensions, more than an HNSW index takes (${MAX_HNSW_DIMENSIONS}): vector search scans them`
          : `no HNSW index for ${dim}-dimension embeddings: vector search scans them. Set EMBEDDINGS_DIMENSIONS=${dim}; the next migrate (the migration Job, or the start in development) creates it`,
      );
    }
  }
}
